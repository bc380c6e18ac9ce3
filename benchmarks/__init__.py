"""Comparison benchmarks of loom-toolchain against the tools users would pick instead.

Run them with ``python3 benchmarks/run_all.py`` (see ``benchmarks/README.md``). This file only
makes ``benchmarks`` a regular package so the harness can be imported by ``tests/benchmarks``;
nothing here is part of the installed distribution.
"""
