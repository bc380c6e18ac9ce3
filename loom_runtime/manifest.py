"""The ``loom-manifest/1`` schema: frozen dataclasses, a strict reader and a deterministic writer.

The runtime owns the schema; the compiler writes through these same types, so the two can never
drift. JSON layout (keys sorted on write, no timestamps, no absolute paths)::

    {"schema": "loom-manifest/1", "fingerprintScheme": "loom-fp/2",
     "flows": {"checkout": {"current": "sha256:…", "removed": false,
                            "versions": {"sha256:…": {<VersionEntry>}}}}}

A ``VersionEntry`` holds ``flowHash``, ``legacyFlowHash``, ``version``, ``steps``,
``stepFamilies``, ``compatibleWith``, ``chunk`` (relative to the manifest), ``chunkDigest``,
``entry`` (the flow function's name inside its chunk), ``source`` (``path``, ``line``,
``sourceDigest``, optional ``closureSources``), ``closure`` (member → hash), and optionally
``scheme`` and ``rehashedFrom`` (below). A regex step family is stored as ``{"pattern": …,
"flags": …}``; a plain family as a string.

**Schemes.** ``scheme`` is the fingerprint scheme that computed the version's codeHash
(``loom-fp/2`` today). It is *absent* for ``loom-fp/1``: every manifest written before the field
existed is fp/1, and an fp/1 entry a cumulative rebuild carries over stays byte-identical. The
top-level ``fingerprintScheme`` is the scheme of the build that wrote the file (its current
versions); a file may hold versions of several schemes, because journals pin codeHashes by value.
``rehashedFrom`` (absent when empty; sorted) lists the codeHashes that *earlier* schemes gave to
exactly this code: a rebuild under a new scheme links a version to an earlier-scheme version whose
closure sources are byte-identical (``loom_compiler.bundle.rehash``), and the registry serves an
execution that recorded one of those hashes with this version (``loom_runtime.registry``). The
reader checks that ``scheme`` looks like ``loom-fp/<n>``, that ``rehashedFrom`` holds well-formed
codeHashes other than the version's own, that only a version of a later scheme lists any, and,
for a listed hash that is also a version of the flow, that it is of an earlier scheme and has the
same ``flowHash`` (the same code cannot have another declared structure). A listed hash that is
not (or no longer: ``loom gc``) a version is allowed.

The reader validates shape and formats and names the file, the flow and the offending key: hashes
must be well formed (a codeHash key must be usable as ``code_fingerprint``; ``chunkDigest`` and
``sourceDigest`` are ``sha256:<64 hex>``), and ``chunk`` must be a relative POSIX path without
``..``, a drive or a backslash. What needs the disk (symlinks that lead out of the manifest's
directory, the chunk bytes against ``chunkDigest``) is checked by ``loom_runtime.chunks`` when a
chunk is opened, because only then is reading the file worth its cost.

**Closure sources.** ``source.sourceDigest`` is the sha256 of the file that defines the flow, but
a codeHash covers the flow's whole closure: an edit to a helper in ``shop/pricing.py`` changes the
code the process runs while the flow's own file is unchanged. So each version built from a source
tree also records ``source.closureSources``: ``{"<module>": "sha256:<64 hex>"}``, the digest of the
bytes of every first-party module that holds a member of the closure (the flow's own module
included; modules reached only through a ``@step``, whose body is not in the codeHash, are not).
Example::

    "source": {"closureSources": {"shop.flows": "sha256:…", "shop.pricing": "sha256:…"},
               "line": 12, "path": "shop/flows.py", "sourceDigest": "sha256:…"}

Why this shape: ``sourceDigest`` keeps its meaning, so manifests already written (and runtimes
already deployed, which ignore unknown keys) stay valid; keys are *module names*, not paths,
because ``source.path`` is relative to a project root that an installed service does not have,
while a module name is what the runtime can locate through the import system; keys are sorted and
values are content digests, so the file stays deterministic. The field is optional: a version
without it (an older build) is read as before (``SourceRef.closure_sources is None``) and written
back unchanged, so a cumulative rebuild keeps earlier entries byte-stable. When present it is
validated (module names dotted identifiers, digests ``sha256:<64 hex>``) and an error names the
key. Rejected: a list of ``{path, digest}`` (paths cannot be located in an installed service), one
digest over all closure files (the runtime could not say *which* module changed, and would need
the build's file order), and ``sourceDigest`` turned into a map (it would break every manifest
reader already deployed).

Two readers share those checks: ``load_manifest`` (tools: every flow now, every error now) and
``ManifestDocument.read`` (the runtime registry: the top level now, each flow on first use, and for
a file in the canonical layout without decoding the flows it never uses).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import json_values
from .definition import StepFamily
from .errors import ManifestError
from .files import read_regular_file
from .schemes import FINGERPRINT_SCHEME, LEGACY_FINGERPRINT_SCHEME

__all__ = [
    "MANIFEST_SCHEMA",
    "FINGERPRINT_SCHEME",
    "LEGACY_FINGERPRINT_SCHEME",
    "scheme_number",
    "SourceRef",
    "VersionEntry",
    "FlowEntry",
    "Manifest",
    "ManifestDocument",
    "load_manifest",
    "dump_manifest",
    "write_manifest",
    "atomic_write_bytes",
]

MANIFEST_SCHEMA = "loom-manifest/1"

# Formats the reader insists on. A codeHash may be a legacy ``fnv1a:`` value because an author's
# explicit ``code_fingerprint=`` may be one (``FlowDefinition`` accepts both).
_CODE_HASH_RE = re.compile(r"sha256:[0-9a-f]{64}|fnv1a:[0-9a-f]{8}")
_SHA256_RE = re.compile(r"sha256:[0-9a-f]{64}")
_FNV1A_RE = re.compile(r"fnv1a:[0-9a-f]{8}")
_DRIVE_RE = re.compile(r"[A-Za-z]:")
_SCHEME_RE = re.compile(r"loom-fp/([1-9][0-9]{0,5})")


def scheme_number(scheme: str) -> int:
    """``2`` for ``"loom-fp/2"``: schemes are ordered by their number (``ValueError`` otherwise)."""
    m = _SCHEME_RE.fullmatch(scheme)
    if m is None:
        raise ValueError(f"{scheme!r} is not a fingerprint scheme like 'loom-fp/2'")
    return int(m.group(1))


@dataclass(frozen=True, slots=True)
class SourceRef:
    path: str  # POSIX path relative to the project root
    line: int
    source_digest: str  # sha256:<hex> of the bytes of the file that defines the flow (not its closure)
    #: module name -> sha256:<hex> of its file, for every first-party module of the closure; None
    #: for a version written by a build that did not record it (the key is then left out on write).
    closure_sources: Mapping[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"line": self.line, "path": self.path, "sourceDigest": self.source_digest}
        if self.closure_sources is not None:
            doc["closureSources"] = dict(sorted(self.closure_sources.items()))
        return doc


@dataclass(frozen=True, slots=True)
class VersionEntry:
    code_hash: str
    flow_hash: str
    legacy_flow_hash: str
    version: int
    steps: tuple[str, ...]
    step_families: tuple[StepFamily, ...]
    compatible_with: tuple[str, ...]
    chunk: str  # POSIX path relative to the manifest's directory
    chunk_digest: str
    entry: str
    source: SourceRef
    closure: Mapping[str, str] = field(default_factory=dict)
    #: the scheme that computed ``code_hash``; the default is what an entry without the key means
    scheme: str = LEGACY_FINGERPRINT_SCHEME
    #: earlier-scheme codeHashes of exactly this code (sorted; see the module docstring)
    rehashed_from: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        doc = {
            "chunk": self.chunk,
            "chunkDigest": self.chunk_digest,
            "closure": dict(sorted(self.closure.items())),
            "compatibleWith": list(self.compatible_with),
            "entry": self.entry,
            "flowHash": self.flow_hash,
            "legacyFlowHash": self.legacy_flow_hash,
            "source": self.source.to_json(),
            "stepFamilies": [_family_to_json(f) for f in self.step_families],
            "steps": list(self.steps),
            "version": self.version,
        }
        # Both keys are left out at their defaults, so an fp/1 entry carried over stays byte-stable.
        if self.scheme != LEGACY_FINGERPRINT_SCHEME:
            doc["scheme"] = self.scheme
        if self.rehashed_from:
            doc["rehashedFrom"] = sorted(self.rehashed_from)
        return doc


@dataclass(frozen=True, slots=True)
class FlowEntry:
    flow_id: str
    current: str | None  # codeHash of the current version; None when the flow was removed
    versions: Mapping[str, VersionEntry]
    removed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "current": self.current,
            "removed": self.removed,
            "versions": {h: self.versions[h].to_json() for h in sorted(self.versions)},
        }


@dataclass(frozen=True, slots=True)
class Manifest:
    flows: Mapping[str, FlowEntry]
    schema: str = MANIFEST_SCHEMA
    fingerprint_scheme: str = FINGERPRINT_SCHEME

    def to_json(self) -> dict[str, Any]:
        return {
            "fingerprintScheme": self.fingerprint_scheme,
            "flows": {fid: self.flows[fid].to_json() for fid in sorted(self.flows)},
            "schema": self.schema,
        }

    @classmethod
    def from_json(cls, doc: Any, *, path: str = "<manifest>") -> Manifest:
        header = ManifestDocument.from_json(doc, path=path)
        flows = {flow_id: header.flow(flow_id) for flow_id in header.flows}
        return cls(flows=flows, schema=header.schema, fingerprint_scheme=header.fingerprint_scheme)


@dataclass(frozen=True, slots=True)
class ManifestDocument:
    """A decoded manifest whose top level is checked and whose flows are parsed on demand.

    ``load_manifest`` parses every flow at once (tools want every error now). The runtime registry
    reads a bundle that may hold thousands of versions at process start but resumes few of them, so
    it parses (and refuses) one flow's entry on that flow's first use, with the same checks and the
    same messages; the schema and the shape of the top level are checked here, eagerly.
    """

    path: str
    schema: str
    fingerprint_scheme: str
    # flow id -> its raw JSON object, or where its still-undecoded object lies in the file's bytes
    # (canonical files, see ``read``); either way checked by ``flow``.
    flows: Mapping[str, Any]

    @classmethod
    def from_json(cls, doc: Any, *, path: str = "<manifest>") -> ManifestDocument:
        r = _Reader(path)
        obj = r.obj(doc, "")
        schema = r.text(obj, "schema", "")
        if schema != MANIFEST_SCHEMA:
            raise ManifestError(
                f"{path}: unknown manifest schema {schema!r} (this runtime reads {MANIFEST_SCHEMA!r}); "
                "rebuild with a matching `loom build` or upgrade loom_runtime",
                path=path,
                key="schema",
            )
        scheme = r.text(obj, "fingerprintScheme", "")
        flows_doc = r.obj(r.get(obj, "flows", ""), "flows")
        if "" in flows_doc:
            raise r.fail("flows", "holds an empty flow id")
        return cls(path=path, schema=schema, fingerprint_scheme=scheme, flows=flows_doc)

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> ManifestDocument:
        """Read a manifest file; a file in the canonical layout is not decoded past its top level.

        ``dump_manifest`` writes one layout (two-space indent, sorted keys). JSON strings cannot
        hold a raw newline, so in that layout each flow's object is exactly the run of lines from
        ``    "<id>": {`` to the next line that is ``    }``: the reader cuts the file there (C-speed
        ``bytes.find``) and checks that everything between the cuts is the fixed glue of the layout,
        then decodes a flow's bytes on its first lookup. Decoding a 10,000-version bundle in full
        costs more than the registry's whole start-up budget, and a process resumes few flows. A
        file in any other layout (hand-edited, another writer) is decoded in full, as before;
        either way every flow is checked by the same ``_Reader`` with the same messages.
        """
        p = Path(path)
        raw = _read_bytes(p)
        split = _split_canonical(raw)
        if split is None:
            return cls.from_json(_decode_json(raw, p), path=str(p))
        header, flows = split
        header["flows"] = flows  # spans: from_json checks the top level and the ids, never a flow's body
        return cls.from_json(header, path=str(p))

    def flow(self, flow_id: str) -> FlowEntry:
        """The checked entry of one flow (``KeyError`` if the manifest does not list it)."""
        doc = self.flows[flow_id]
        if isinstance(doc, _Span):
            try:
                doc = json_values.decode(doc.data[doc.start : doc.end])
            except json_values.JsonValueError as exc:
                what = f"is not valid UTF-8 JSON (line {exc.line} of its entry)" if exc.line else f"cannot be read: {exc.what}"
                raise ManifestError(
                    f"{self.path}: flow `{flow_id}`: its entry {what}; rebuild it with `loom build`",
                    path=self.path,
                    flow_id=flow_id,
                    key=f"flows.{flow_id}",
                ) from None
        return _Reader(self.path).flow(flow_id, doc)


# The canonical layout's fixed glue (see ``ManifestDocument.read``). A JSON string token on one line:
_STR = rb'"(?:[^"\\\n]|\\.)*"'
_HEAD_RE = re.compile(rb'\{\n  "fingerprintScheme": (' + _STR + rb'),\n  "flows": \{')
_FLOW_KEY_RE = re.compile(rb"    (" + _STR + rb"): \{\n")
_TAIL_RE = re.compile(rb'\n  \},\n  "schema": (' + _STR + rb")\n\}\n?")
_EMPTY_TAIL_RE = re.compile(rb'\},\n  "schema": (' + _STR + rb")\n\}\n?")
_FLOW_END = b"\n    }"


class _Span:
    """Where one flow's object lies in the manifest's bytes: one shared buffer, no copy per flow."""

    __slots__ = ("data", "start", "end")

    def __init__(self, data: bytes, start: int, end: int) -> None:
        self.data = data
        self.start = start
        self.end = end

    def text(self) -> str:
        return self.data[self.start : self.end].decode("utf-8")


def _split_canonical(data: bytes) -> tuple[dict[str, Any], dict[str, _Span]] | None:
    """``({"schema", "fingerprintScheme"}, {flow id: span of its object})``, or None when ``data``
    is not exactly in the canonical layout (the caller then decodes it in full)."""
    head = _HEAD_RE.match(data)
    if head is None:
        return None
    pos = head.end()
    flows: dict[str, _Span] = {}
    if data.startswith(b"}", pos):
        tail = _EMPTY_TAIL_RE.fullmatch(data, pos)
    else:
        if not data.startswith(b"\n", pos):
            return None
        pos += 1
        while True:
            key = _FLOW_KEY_RE.match(data, pos)
            if key is None:
                return None
            end = data.find(_FLOW_END, key.end() - 1)
            if end < 0:
                return None
            try:
                flow_id = json.loads(key.group(1).decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                return None
            if flow_id in flows:
                return None  # duplicate keys: let the full decoder apply JSON's rules
            flows[flow_id] = _Span(data, key.end() - 2, end + len(_FLOW_END))
            pos = end + len(_FLOW_END)
            if data.startswith(b",\n", pos):
                pos += 2
                continue
            break
        tail = _TAIL_RE.fullmatch(data, pos)
    if tail is None:
        return None
    try:
        header = {
            "fingerprintScheme": json.loads(head.group(1).decode("utf-8")),
            "schema": json.loads(tail.group(1).decode("utf-8")),
        }
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return header, flows


def dump_manifest(manifest: Manifest) -> bytes:
    """Deterministic bytes: sorted keys, two-space indent, trailing newline."""
    return (_indented_json(manifest.to_json()) + "\n").encode("utf-8")


def _indented_json(doc: Any) -> str:
    """``json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False)``, the same text ~3x faster.

    With an indent the json module encodes in Python generators; every ``loom build`` dumps the
    whole manifest to compare it with the file (~6 ms of a 120-flow no-change rebuild). Strings go
    through the json module's own (C) quoting; a value of any type but the plain JSON ones (a
    ``str`` or ``dict`` subclass, a non-string key) is left to ``json.dumps`` itself."""
    out: list[str] = []
    try:
        _emit_json(doc, out, "\n")
    except _NotPlain:
        return json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False)
    return "".join(out)


class _NotPlain(Exception):
    pass


_quote = json.encoder.encode_basestring  # what json.dumps(ensure_ascii=False) quotes with


def _emit_json(value: Any, out: list[str], newline: str) -> None:
    kind = type(value)
    if kind is str:
        out.append(_quote(value))
    elif kind is dict:
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        if any(type(k) is not str for k in value):
            raise _NotPlain
        sep = "{" + inner
        for key in sorted(value):
            out.append(sep)
            out.append(_quote(key))
            out.append(": ")
            _emit_json(value[key], out, inner)
            sep = "," + inner
        out.append(newline + "}")
    elif kind is list or kind is tuple:
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        sep = "[" + inner
        for item in value:
            out.append(sep)
            _emit_json(item, out, inner)
            sep = "," + inner
        out.append(newline + "]")
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif kind is int:
        out.append(int.__repr__(value))
    elif kind is float and value == value and value not in (float("inf"), float("-inf")):
        out.append(float.__repr__(value))
    else:  # NaN, infinities, subclasses, anything else: json.dumps says what it does with them
        raise _NotPlain


def load_manifest(path: str | os.PathLike[str]) -> Manifest:
    """Read and check a whole manifest; every error is a ``ManifestError`` naming file, flow and key."""
    p = Path(path)
    return Manifest.from_json(_read_json(p), path=str(p))


def _read_json(p: Path) -> Any:
    return _decode_json(_read_bytes(p), p)


def _read_bytes(p: Path) -> bytes:
    try:
        return read_regular_file(p)  # a FIFO named manifest.json is refused, never waited on
    except OSError as exc:
        raise ManifestError(f"{p}: cannot read manifest ({exc.strerror}); run `loom build`", path=str(p)) from None


def _decode_json(raw: bytes, p: Path) -> Any:
    # json_values.decode: 100,000-deep nesting or a 5,000-digit integer is a ManifestError, not a traceback
    try:
        return json_values.decode(raw)
    except json_values.JsonValueError as exc:
        raise ManifestError(f"{p}: {exc.what}; rebuild it with `loom build`", path=str(p)) from None


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write through a temporary file in the same directory and ``os.replace``: all or nothing.
    The file is fsynced before the rename and its directory after it, so once this returns the new
    bytes survive a power cut, and a crash at any point leaves the old file or the new one whole."""
    import tempfile  # here, not at import: it pulls in shutil, bz2 and lzma (~3 ms) for writers only

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(p.parent)


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover - a platform without directory handles (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - a filesystem that refuses directory fsync
        pass
    finally:
        os.close(fd)


def write_manifest(path: str | os.PathLike[str], manifest: Manifest) -> None:
    atomic_write_bytes(path, dump_manifest(manifest))


def _family_to_json(fam: StepFamily) -> Any:
    if isinstance(fam, re.Pattern):
        return {"flags": int(fam.flags & ~re.UNICODE), "pattern": fam.pattern}
    return fam


class _Reader:
    """Shape checks that name the manifest file, the flow and the key."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, key: str, what: str, flow_id: str | None = None) -> ManifestError:
        where = f" flow `{flow_id}`" if flow_id else ""
        return ManifestError(
            f"{self.path}:{where} key `{key or '<root>'}` {what}; rebuild the manifest with `loom build`",
            path=self.path,
            flow_id=flow_id,
            key=key,
        )

    def get(self, obj: Mapping[str, Any], key: str, at: str, flow_id: str | None = None) -> Any:
        if key not in obj:
            raise self.fail(f"{at}.{key}" if at else key, "is missing", flow_id)
        return obj[key]

    def obj(self, value: Any, at: str, flow_id: str | None = None) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(at, f"must be an object, got {type(value).__name__}", flow_id)
        return value

    def text(self, obj: Mapping[str, Any], key: str, at: str, flow_id: str | None = None, *, optional: bool = False) -> Any:
        value = self.get(obj, key, at, flow_id)
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise self.fail(f"{at}.{key}" if at else key, f"must be a string, got {value!r}", flow_id)
        return value

    def integer(self, obj: Mapping[str, Any], key: str, at: str, flow_id: str) -> int:
        value = self.get(obj, key, at, flow_id)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(f"{at}.{key}", f"must be an integer, got {value!r}", flow_id)
        return value

    def strs(self, obj: Mapping[str, Any], key: str, at: str, flow_id: str) -> tuple[str, ...]:
        value = self.get(obj, key, at, flow_id)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{at}.{key}", "must be a list of strings", flow_id)
        return tuple(value)

    def flow(self, flow_id: str, doc: Any) -> FlowEntry:
        at = f"flows.{flow_id}"
        fdoc = self.obj(doc, at, flow_id)
        current = self.text(fdoc, "current", at, flow_id, optional=True)
        removed = self.get(fdoc, "removed", at, flow_id)
        if not isinstance(removed, bool):
            raise self.fail(f"{at}.removed", "must be true or false", flow_id)
        vdocs = self.obj(self.get(fdoc, "versions", at, flow_id), f"{at}.versions", flow_id)
        versions = {h: self.version(flow_id, h, v) for h, v in vdocs.items()}
        if current is not None and current not in versions:
            raise self.fail(f"{at}.current", f"names {current!r}, which is not among its versions", flow_id)
        for ve in versions.values():
            self.rehash_links(flow_id, ve, versions)
        return FlowEntry(flow_id=flow_id, current=current, versions=versions, removed=removed)

    def hashed(self, obj: Mapping[str, Any], key: str, at: str, flow_id: str, pattern: re.Pattern[str], form: str) -> str:
        value = self.text(obj, key, at, flow_id)
        if not pattern.fullmatch(value):
            raise self.fail(f"{at}.{key}", f"must look like {form}, got {value!r}", flow_id)
        return value

    def chunk_path(self, v: Mapping[str, Any], at: str, flow_id: str) -> str:
        rel = self.text(v, "chunk", at, flow_id)
        if _bad_chunk_path(rel):
            raise self.fail(
                f"{at}.chunk",
                f"must be a relative POSIX path inside the manifest's directory (no `..`, no absolute path), got {rel!r}",
                flow_id,
            )
        return rel

    def closure_sources(self, src: Mapping[str, Any], at: str, flow_id: str) -> dict[str, str] | None:
        if "closureSources" not in src:
            return None  # written by a build that did not record it
        doc = self.obj(src["closureSources"], f"{at}.closureSources", flow_id)
        for module, digest in doc.items():
            if _bad_entry(module):
                raise self.fail(f"{at}.closureSources", f"must be keyed by dotted module names, got {module!r}", flow_id)
            if not isinstance(digest, str) or not _SHA256_RE.fullmatch(digest):
                raise self.fail(
                    f"{at}.closureSources.{module}", f"must look like 'sha256:<64 hex>', got {digest!r}", flow_id
                )
        return dict(doc)

    def scheme(self, v: Mapping[str, Any], at: str, flow_id: str) -> str:
        if "scheme" not in v:
            return LEGACY_FINGERPRINT_SCHEME
        value = v["scheme"]
        if not isinstance(value, str) or not _SCHEME_RE.fullmatch(value):
            raise self.fail(f"{at}.scheme", f"must be a fingerprint scheme like 'loom-fp/2', got {value!r}", flow_id)
        return value

    def rehashed_from(self, v: Mapping[str, Any], at: str, flow_id: str, code_hash: str, scheme: str) -> tuple[str, ...]:
        if "rehashedFrom" not in v:
            return ()
        key = f"{at}.rehashedFrom"
        value = v["rehashedFrom"]
        if not isinstance(value, list) or not all(isinstance(h, str) for h in value):
            raise self.fail(key, "must be a list of codeHashes", flow_id)
        for h in value:
            if not _CODE_HASH_RE.fullmatch(h):
                raise self.fail(key, f"holds {h!r}, which is not a codeHash like 'sha256:<64 hex>'", flow_id)
        if code_hash in value:
            raise self.fail(key, "lists the version's own codeHash", flow_id)
        if len(set(value)) != len(value):
            raise self.fail(key, "lists a codeHash twice", flow_id)
        if value and scheme_number(scheme) <= 1:
            raise self.fail(key, f"is set on a {scheme} version; only a version of a later scheme can rehash one", flow_id)
        return tuple(sorted(value))

    def rehash_links(self, flow_id: str, ve: VersionEntry, versions: Mapping[str, VersionEntry]) -> None:
        """A listed hash that is a version of this flow must be the same code of an earlier scheme."""
        key = f"flows.{flow_id}.versions.{ve.code_hash}.rehashedFrom"
        for h in ve.rehashed_from:
            old = versions.get(h)
            if old is None:
                continue  # dropped by `loom gc` (no execution needs it), or never shipped here
            if scheme_number(old.scheme) >= scheme_number(ve.scheme):
                raise self.fail(key, f"lists {h}, a {old.scheme} version, but this version is {ve.scheme}; "
                                     "only an earlier scheme's hash of the same code belongs there", flow_id)
            if old.flow_hash != ve.flow_hash:
                raise self.fail(key, f"lists {h}, whose flowHash {old.flow_hash} differs from {ve.flow_hash}; "
                                     "the same code cannot declare another structure", flow_id)

    def version(self, flow_id: str, code_hash: str, doc: Any) -> VersionEntry:
        at = f"flows.{flow_id}.versions.{code_hash}"
        if not _CODE_HASH_RE.fullmatch(code_hash):
            raise self.fail(f"flows.{flow_id}.versions", f"is keyed by {code_hash!r}, which is not a codeHash like 'sha256:<64 hex>'", flow_id)
        v = self.obj(doc, at, flow_id)
        src = self.obj(self.get(v, "source", at, flow_id), f"{at}.source", flow_id)
        closure = self.obj(self.get(v, "closure", at, flow_id), f"{at}.closure", flow_id)
        if not all(isinstance(h, str) for h in closure.values()):
            raise self.fail(f"{at}.closure", "must map member names to hash strings", flow_id)
        families_doc = self.get(v, "stepFamilies", at, flow_id)
        if not isinstance(families_doc, list):
            raise self.fail(f"{at}.stepFamilies", "must be a list", flow_id)
        families: list[StepFamily] = []
        for fam in families_doc:
            if isinstance(fam, str):
                families.append(fam)
            elif isinstance(fam, dict) and isinstance(fam.get("pattern"), str) and isinstance(fam.get("flags", 0), int):
                try:
                    families.append(re.compile(fam["pattern"], fam.get("flags", 0)))
                except re.error as exc:
                    raise self.fail(f"{at}.stepFamilies", f"holds an invalid regex ({exc})", flow_id) from None
            else:
                raise self.fail(f"{at}.stepFamilies", f"entries must be strings or {{pattern, flags}}, got {fam!r}", flow_id)
        version = self.integer(v, "version", at, flow_id)
        if version < 1:
            raise self.fail(f"{at}.version", f"must be a positive integer, got {version}", flow_id)
        compatible_with = self.strs(v, "compatibleWith", at, flow_id)
        for h in compatible_with:
            if not _CODE_HASH_RE.fullmatch(h):
                raise self.fail(f"{at}.compatibleWith", f"holds {h!r}, which is not a codeHash like 'sha256:<64 hex>'", flow_id)
        scheme = self.scheme(v, at, flow_id)
        entry = self.text(v, "entry", at, flow_id)
        if _bad_entry(entry):
            raise self.fail(f"{at}.entry", f"must be a dotted Python name inside the chunk, got {entry!r}", flow_id)
        return VersionEntry(
            code_hash=code_hash,
            flow_hash=self.hashed(v, "flowHash", at, flow_id, _SHA256_RE, "'sha256:<64 hex>'"),
            legacy_flow_hash=self.hashed(v, "legacyFlowHash", at, flow_id, _FNV1A_RE, "'fnv1a:<8 hex>'"),
            version=version,
            steps=self.strs(v, "steps", at, flow_id),
            step_families=tuple(families),
            compatible_with=compatible_with,
            chunk=self.chunk_path(v, at, flow_id),
            chunk_digest=self.hashed(v, "chunkDigest", at, flow_id, _SHA256_RE, "'sha256:<64 hex>'"),
            entry=entry,
            source=SourceRef(
                path=self.text(src, "path", f"{at}.source", flow_id),
                line=self.integer(src, "line", f"{at}.source", flow_id),
                source_digest=self.hashed(src, "sourceDigest", f"{at}.source", flow_id, _SHA256_RE, "'sha256:<64 hex>'"),
                closure_sources=self.closure_sources(src, f"{at}.source", flow_id),
            ),
            closure=dict(closure),
            scheme=scheme,
            rehashed_from=self.rehashed_from(v, at, flow_id, code_hash, scheme),
        )


def _bad_chunk_path(rel: str) -> bool:
    # Syntactic containment only; symlinks are resolved when the chunk is opened (chunks.py).
    return (
        not rel
        or rel.startswith("/")
        or "\\" in rel
        or "\x00" in rel
        or _DRIVE_RE.match(rel) is not None
        or ".." in rel.split("/")
    )


def _bad_entry(entry: str) -> bool:
    return not entry or not all(part.isidentifier() for part in entry.split("."))
