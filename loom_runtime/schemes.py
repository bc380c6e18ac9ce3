"""The names of the fingerprint schemes (DESIGN §6): which scheme computed a codeHash.

Their own module, free of everything else, so that what only needs the names — the compiler's
cache keys, read on every ``loom fingerprint`` a pre-commit hook runs — does not load the manifest
schema (its dataclasses, regexes and readers: ~4 ms of a ~75 ms warm run). ``manifest`` re-exports
both names; import them from either.
"""

from __future__ import annotations

__all__ = ["FINGERPRINT_SCHEME", "LEGACY_FINGERPRINT_SCHEME"]

#: The scheme of the codeHashes this release's compiler computes (``loom_compiler.canonical.SCHEME``).
FINGERPRINT_SCHEME = "loom-fp/2"
#: What a version entry without a ``scheme`` key was fingerprinted with.
LEGACY_FINGERPRINT_SCHEME = "loom-fp/1"
