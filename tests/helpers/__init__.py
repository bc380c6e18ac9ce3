"""Helpers shared by the compiler-side test packages (importable because ``tests/`` holds the
root ``conftest.py``, which pytest puts on ``sys.path``)."""
