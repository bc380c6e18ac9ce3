"""loom_compiler: build-time half of loom-toolchain (libcst, click, tomli).

Finds ``@flow`` functions, computes their ``loom-fp/1`` code fingerprint over the whole closure,
emits a chunk per code version and a cumulative manifest. Imports ``loom_runtime``; never the
reverse.
"""

__all__: list[str] = []
