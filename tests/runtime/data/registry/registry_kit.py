"""Hand-built bundles for the registry tests: real chunk files plus a manifest written through
``loom_runtime.manifest`` (the same writer ``loom build`` uses), so the tests never wait for the
bundler and exercise the exact on-disk contract."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from loom_runtime import FlowDefinition, flow_content_hash, legacy_flow_content_hash
from loom_runtime.chunks import CHUNK_NAMESPACE
from loom_runtime.hashing import sha256_digest
from loom_runtime.manifest import FlowEntry, Manifest, SourceRef, VersionEntry, write_manifest


def code(label: str) -> str:
    """A stable, well-formed codeHash for a label ("v1", "v2"...)."""
    return sha256_digest(label.encode())


digest = sha256_digest


@pytest.fixture(autouse=True)
def forget_chunk_modules():
    """Autouse in every module that imports it: chunk modules (and ``loomtest_*`` packages) a test
    loaded leave ``sys.modules`` after it, so each test executes its own chunks."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith(CHUNK_NAMESPACE + ".") or name.startswith("loomtest_"):
            del sys.modules[name]


def flow_chunk(flow_id: str, *, result: str, steps: Sequence[str] = (), version: int = 1,
               compatible_with: Iterable[str] = (), extra: str = "") -> str:
    """A self-contained chunk: a helper returning ``result`` and a flow that calls it."""
    head = textwrap.dedent(
        f'''\
        # loom chunk (hand-written test fixture) for flow {flow_id!r}
        from loom_runtime import flow

        HELPER_RESULT = {result!r}


        def helper():
            return HELPER_RESULT

        '''
    )
    tail = textwrap.dedent(
        f'''
        @flow({flow_id!r}, version={version}, steps={list(steps)!r}, compatible_with={list(compatible_with)!r})
        def run(ctx=None):
            return helper()
        '''
    )
    return head + extra + tail


@dataclass
class Spec:
    flow_id: str
    label: str  # codeHash = code(label)
    source: str  # chunk text
    steps: tuple[str, ...] = ()
    version: int = 1
    compatible_with: tuple[str, ...] = ()
    entry: str = "run"
    chunk: str | None = None  # override the chunk path written into the manifest
    source_path: str = "app/flows.py"
    source_digest: str = field(default_factory=lambda: digest(b"not the live file"))
    scheme: str = "loom-fp/1"  # what an entry without the key means
    rehashed_from: tuple[str, ...] = ()  # labels, like ``label``

    @property
    def code_hash(self) -> str:
        return code(self.label)


def write_bundle(root: Path, specs: Sequence[Spec], current: dict[str, str]) -> Path:
    """Write chunks and ``manifest.json`` under ``root``; ``current`` maps flow id -> label."""
    flows: dict[str, dict[str, VersionEntry]] = {}
    for s in specs:
        rel = s.chunk or f"chunks/{s.flow_id}/{s.code_hash.partition(':')[2][:16]}.py"
        data = s.source.encode("utf-8")
        if s.chunk is None:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        structure = FlowDefinition(id=s.flow_id, version=s.version, steps=s.steps)
        flows.setdefault(s.flow_id, {})[s.code_hash] = VersionEntry(
            code_hash=s.code_hash,
            flow_hash=flow_content_hash(structure),
            legacy_flow_hash=legacy_flow_content_hash(structure),
            version=s.version,
            steps=s.steps,
            step_families=(),
            compatible_with=s.compatible_with,
            chunk=rel,
            chunk_digest=digest(data),
            entry=s.entry,
            source=SourceRef(path=s.source_path, line=1, source_digest=s.source_digest),
            closure={},
            scheme=s.scheme,
            rehashed_from=tuple(sorted(code(label) for label in s.rehashed_from)),
        )
    manifest = Manifest(
        flows={
            fid: FlowEntry(flow_id=fid, current=code(current[fid]) if fid in current else None, versions=vs,
                           removed=fid not in current)
            for fid, vs in flows.items()
        }
    )
    path = root / "manifest.json"
    write_manifest(path, manifest)
    return path
