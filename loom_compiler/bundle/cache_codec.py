"""Cache entries as plain JSON values, typed by dataclass annotations: nothing in an entry can run.

``encode(value, tp)`` turns a value of the annotated type ``tp`` (frozen dataclasses such as
``analysis.ModuleSummary``, tuples, strings, …) into JSON bytes; ``decode(data, tp)`` rebuilds it
and checks every value against the annotation on the way, raising ``CacheFormatError`` for
anything else. The codec is *generic*: it reads a dataclass's fields (``dataclasses.fields`` and
``typing.get_type_hints``), so a field added to ``ModuleSummary`` or ``FlowFingerprint`` needs no
edit here, and ``schema_digest(tp)`` (a digest of every field name and type, recursively) goes
into the cache key, so an entry written for other fields is never even looked up.

Encoding, per annotation:

* ``str``/``int``/``float``/``bool``/``None``, ``Literal[…]``, ``Enum`` members: the JSON scalar
  (checked exactly on read: ``True`` is no ``int``, ``1`` no ``float``, a literal must be listed);
* ``tuple[X, ...]``, ``tuple[X, Y]``, ``list[X]``, ``frozenset[X]``: a JSON list (length checked
  for fixed tuples);
* ``dict[str, X]`` / ``Mapping[str, X]``: a JSON object (read back as a ``dict``);
* ``re.Pattern``: ``{"pattern", "flags"}``, recompiled (a bad pattern is a format error);
* a dataclass: the list of its ``__init__`` fields in declaration order, rebuilt with ``cls(*args)``
  (so ``__post_init__`` checks run, and fail as a format error);
* ``A | B``: the value as is when at most one alternative is structured (a list or object: the
  JSON kind tells them apart), else ``[index, value]``.

Anything else (``Any``, ``object``, a callable, ``bytes``) cannot be cached: encoding a value that
needs it raises ``TypeError`` naming the field, so a field typed that way is found by the first
build of any test, not by a user. A union alternative that cannot be encoded is fine while the
values never take it (``FlowDefinition.fn: Callable | None`` is always ``None`` in the compiler).

Decoding is bounded by the *type*, not the data: a 100,000-deep list in an entry fails at the
first level the annotation does not allow, and ``json.loads``' own ``RecursionError`` or a
5,000-digit integer (``ValueError``) become ``CacheFormatError`` too.

Rejected: pickle (a crafted entry runs code in ``loom build``; a valid pickle of the wrong type
crashed it), ``marshal`` (documented as unsafe against crafted data), a hand-written
``to_json``/``from_json`` per class (every field change in the analysis would need a matching
edit here, by another engineer, in a file they do not own), and field-name objects instead of
positional lists (twice the bytes and slower to read; the key's schema digest already pins the
field order).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import re
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["CacheFormatError", "encode", "decode", "schema_digest"]


class CacheFormatError(ValueError):
    """An entry that is not a value of the expected type (``where`` is the path into it)."""

    def __init__(self, what: str, where: str = "") -> None:
        super().__init__(f"{where or '<entry>'}: {what}")
        self.what = what
        self.where = where


def encode(value: Any, tp: Any) -> bytes:
    """``value`` (of annotation ``tp``) as compact JSON bytes; ``TypeError`` if it cannot be."""
    doc = _codec(tp).enc(value, "")
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), check_circular=False).encode("utf-8")


def decode(data: bytes | str, tp: Any) -> Any:
    """The value ``encode(value, tp)`` wrote; ``CacheFormatError`` for anything else."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError, TypeError) as exc:  # JSONDecodeError, int digit limit, depth
        raise CacheFormatError(f"not a JSON document ({type(exc).__name__}: {exc})") from None
    try:
        return _codec(tp).dec(doc)
    except _Mismatch as exc:
        raise CacheFormatError(exc.what, exc.where()) from None
    except (TypeError, ValueError, RecursionError, re.error) as exc:  # a __post_init__ check, a bad regex
        raise CacheFormatError(f"rejected by its type ({type(exc).__name__}: {exc})") from None


def schema_digest(tp: Any) -> str:
    """sha256 over the shape of ``tp``: every dataclass's qualified name, field names and types."""
    return hashlib.sha256(_codec(tp).shape.encode("utf-8")).hexdigest()


# -- codecs -------------------------------------------------------------------------------------------


class _Mismatch(Exception):
    """Raised while decoding; carries the path (built on the way out, so a hit never builds one)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.path: list[str] = []

    def where(self) -> str:
        return "".join(reversed(self.path))


class _Codec:
    """``enc(value, where)`` -> JSON value, ``dec(doc)`` -> value, ``shape`` (for the digest),
    ``structured`` (encoded as a JSON list or object, not a scalar), ``accepts(value)``."""

    __slots__ = ("enc", "dec", "shape", "structured", "accepts", "exact")

    def __init__(self) -> None:
        self.enc: Callable[[Any, str], Any] = _unset
        self.dec: Callable[[Any], Any] = _unset
        self.shape = "?"
        self.structured = False
        self.accepts: Callable[[Any], bool] = lambda v: False
        #: for a plain scalar (or a union of them): the exact JSON types it accepts, so a
        #: container of them is checked in one pass with no call per item (most of a warm build)
        self.exact: frozenset[type] | None = None


def _unset(*_: Any) -> Any:  # pragma: no cover - replaced before any use
    raise AssertionError("codec used before it was built")


_CODECS: dict[Any, _Codec] = {}


def _codec(tp: Any) -> _Codec:
    try:
        return _CODECS[tp]
    except KeyError:
        pass
    except TypeError:  # an unhashable annotation object: build it every time (none in practice)
        return _build(tp, _Codec())
    codec = _Codec()
    _CODECS[tp] = codec  # registered first: a dataclass that refers to itself finds it
    try:
        return _build(tp, codec)
    except BaseException:
        del _CODECS[tp]
        raise


def _build(tp: Any, c: _Codec) -> _Codec:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is type(None) or tp is None:
        return _exact(c, "None", frozenset({type(None)}))
    if tp in (str, int, float, bool):
        return _exact(c, tp.__name__, frozenset({tp}))
    if origin is typing.Literal:
        allowed = frozenset((type(a), a) for a in args)  # (type, value): True is not the literal 1
        return _scalar(c, f"Literal{sorted(map(repr, args))}", lambda v: _hashable(v) and (type(v), v) in allowed)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum(c, tp)
    if origin in (typing.Union, types.UnionType):
        return _union(c, args)
    if origin is tuple and args:
        if len(args) == 2 and args[1] is Ellipsis:
            return _sequence(c, f"tuple[{_codec(args[0]).shape}, ...]", args[0], tuple, tuple)
        return _fixed_tuple(c, args)
    if origin in (list, frozenset) and len(args) == 1:
        kind = origin
        return _sequence(c, f"{kind.__name__}[{_codec(args[0]).shape}]", args[0], kind, (list, tuple, frozenset, set))
    if origin in (dict, Mapping, typing.Mapping) and len(args) == 2 and args[0] is str:  # type: ignore[comparison-overlap]
        return _mapping(c, args[1])
    if tp is re.Pattern or origin is re.Pattern:
        return _pattern(c)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _dataclass(c, tp)
    return _unsupported(c, tp)


def _exact(c: _Codec, shape: str, exact: frozenset[type]) -> _Codec:
    """A plain JSON scalar: accepted by its exact type (``True`` is no ``int``, ``1`` no ``float``)."""
    _scalar(c, shape, lambda v: type(v) in exact)
    c.exact = exact

    def dec(doc: Any) -> Any:
        if type(doc) in exact:
            return doc
        raise _Mismatch(f"expected {shape}, got {_kind(doc)}")

    c.dec = dec
    return c


def _hashable(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _scalar(c: _Codec, shape: str, accepts: Callable[[Any], bool]) -> _Codec:
    def enc(value: Any, where: str) -> Any:
        if not accepts(value):
            raise _cannot(value, shape, where)
        return value

    def dec(doc: Any) -> Any:
        if not accepts(doc):
            raise _Mismatch(f"expected {shape}, got {_kind(doc)}")
        return doc

    c.enc, c.dec, c.shape, c.accepts = enc, dec, shape, accepts
    return c


def _enum(c: _Codec, cls: type[enum.Enum]) -> _Codec:
    members = {m.value: m for m in cls}
    shape = f"enum {cls.__module__}.{cls.__qualname__}{sorted(map(repr, members))}"

    def enc(value: Any, where: str) -> Any:
        if not isinstance(value, cls) or not isinstance(value.value, (str, int)) or isinstance(value.value, bool):
            raise _cannot(value, shape, where)
        return value.value

    def dec(doc: Any) -> Any:
        if isinstance(doc, bool) or not isinstance(doc, (str, int)) or doc not in members:
            raise _Mismatch(f"expected a member of {cls.__qualname__}, got {_kind(doc)}")
        return members[doc]

    c.enc, c.dec, c.shape, c.accepts = enc, dec, shape, lambda v: isinstance(v, cls)
    return c


def _union(c: _Codec, args: tuple[Any, ...]) -> _Codec:
    alts = [_codec(a) for a in args]
    tagged = sum(1 for a in alts if a.structured) > 1
    shape = "Union[" + ", ".join(a.shape for a in alts) + "]"
    scalars = [a for a in alts if not a.structured]
    structured = [a for a in alts if a.structured]

    def enc(value: Any, where: str) -> Any:
        for i, alt in enumerate(alts):
            if alt.accepts(value):
                doc = alt.enc(value, where)
                return [i, doc] if tagged and alt.structured else doc
        raise _cannot(value, shape, where)

    def dec(doc: Any) -> Any:
        if type(doc) is list or type(doc) is dict:
            if tagged:
                if type(doc) is not list or len(doc) != 2 or type(doc[0]) is not int or not 0 <= doc[0] < len(alts) \
                        or not alts[doc[0]].structured:
                    raise _Mismatch(f"expected a tagged alternative of {shape}")
                return alts[doc[0]].dec(doc[1])
            if structured:
                return structured[0].dec(doc)
        for alt in scalars:  # scalars are told apart by their JSON type: no exception per try
            if alt.accepts(doc):
                return alt.dec(doc)
        raise _Mismatch(f"expected {shape}, got {_kind(doc)}")

    c.enc, c.dec, c.shape = enc, dec, shape
    c.structured = bool(structured)
    c.accepts = lambda v: any(a.accepts(v) for a in alts)
    if all(a.exact is not None for a in alts):
        exact = frozenset().union(*(a.exact for a in alts))  # type: ignore[arg-type]
        c.exact = exact

        def dec_exact(doc: Any) -> Any:
            if type(doc) not in exact:
                raise _Mismatch(f"expected {shape}, got {_kind(doc)}")
            return doc

        c.dec = dec_exact
    return c


def _sequence(c: _Codec, shape: str, item_tp: Any, make: type, python_types: Any) -> _Codec:
    item = _codec(item_tp)

    def enc(value: Any, where: str) -> Any:
        if not isinstance(value, python_types) or isinstance(value, (str, bytes)):
            raise _cannot(value, shape, where)
        exact = item.exact
        if exact is not None:
            # plain scalars (a statement's references, names): checked inline, no call and no
            # path string per item; anything off takes the items' codec for its error
            for v in value:
                if type(v) not in exact:
                    break
            else:
                # a tuple as it is: ``json.dumps`` writes a tuple as the list it would copy into
                return value if type(value) is tuple else list(value)
        return [item.enc(v, f"{where}[{i}]") for i, v in enumerate(value)]

    def dec(doc: Any) -> Any:
        if type(doc) is not list:
            raise _Mismatch(f"expected a list ({shape}), got {_kind(doc)}")
        exact = item.exact
        if exact is not None:
            for v in doc:
                if type(v) not in exact:
                    break
            else:
                return make(doc)
        item_dec = item.dec
        try:
            return make([item_dec(v) for v in doc])
        except _Mismatch as exc:
            exc.path.append(f"[{_failing([item_dec] * len(doc), doc)}]")
            raise

    c.enc, c.dec, c.shape, c.structured = enc, dec, shape, True
    c.accepts = lambda v: isinstance(v, python_types) and not isinstance(v, (str, bytes))
    return c


def _fixed_tuple(c: _Codec, args: tuple[Any, ...]) -> _Codec:
    items = [_codec(a) for a in args]
    decs = [i.dec for i in items]
    n = len(items)
    shape = "tuple[" + ", ".join(i.shape for i in items) + "]"

    exacts = [i.exact for i in items]

    def enc(value: Any, where: str) -> Any:
        if not isinstance(value, tuple) or len(value) != n:
            raise _cannot(value, shape, where)
        return [v if ex is not None and type(v) in ex else it.enc(v, f"{where}[{i}]")
                for i, (it, ex, v) in enumerate(zip(items, exacts, value))]

    if all(e is not None for e in exacts):
        slow_enc = enc

        def enc(value: Any, where: str) -> Any:  # noqa: F811 - every item a plain scalar
            # checked inline, the tuple as it is (``json.dumps`` writes it as the list it would
            # copy into: a flow entry's ~110 dependency triples, a summary's reference pairs)
            if type(value) is tuple and len(value) == n:
                for v, ex in zip(value, exacts):
                    if type(v) not in ex:  # type: ignore[operator]
                        break
                else:
                    return value
            return slow_enc(value, where)

    def dec(doc: Any) -> Any:
        if type(doc) is not list or len(doc) != n:
            raise _Mismatch(f"expected a list of {n} ({shape}), got {_kind(doc)}")
        try:
            return tuple([d(v) for d, v in zip(decs, doc)])
        except _Mismatch as exc:
            exc.path.append(f"[{_failing(decs, doc)}]")
            raise

    c.enc, c.dec, c.shape, c.structured = enc, dec, shape, True
    c.accepts = lambda v: isinstance(v, tuple) and len(v) == n
    if all(e is not None for e in exacts):
        # every item a plain scalar (a flow entry's dependencies ``(module, path, sha)``: ~110 per
        # flow module): checked inline, no call per item; anything off takes ``dec`` for its error
        def dec_scalars(doc: Any) -> Any:
            if type(doc) is list and len(doc) == n:
                for v, ex in zip(doc, exacts):
                    if type(v) not in ex:  # type: ignore[operator]
                        break
                else:
                    return tuple(doc)
            return dec(doc)

        c.dec = dec_scalars
    return c


def _failing(decs: list[Callable[[Any], Any]], doc: list[Any]) -> int:
    """The index of the first item that does not decode (the slow path, errors only)."""
    for i, (d, v) in enumerate(zip(decs, doc)):
        try:
            d(v)
        except _Mismatch:
            return i
    return -1


def _mapping(c: _Codec, value_tp: Any) -> _Codec:
    item = _codec(value_tp)
    shape = f"dict[str, {item.shape}]"

    def enc(value: Any, where: str) -> Any:
        if not isinstance(value, Mapping) or not all(type(k) is str for k in value):
            raise _cannot(value, shape, where)
        return {k: item.enc(v, f"{where}[{k!r}]") for k, v in value.items()}

    def dec(doc: Any) -> Any:
        if type(doc) is not dict:
            raise _Mismatch(f"expected an object ({shape}), got {_kind(doc)}")
        out = {}
        for k, v in doc.items():
            try:
                out[k] = item.dec(v)
            except _Mismatch as exc:
                exc.path.append(f"[{k!r}]")
                raise
        return out

    c.enc, c.dec, c.shape, c.structured = enc, dec, shape, True
    c.accepts = lambda v: isinstance(v, Mapping)
    return c


def _pattern(c: _Codec) -> _Codec:
    def enc(value: Any, where: str) -> Any:
        if not isinstance(value, re.Pattern) or not isinstance(value.pattern, str):
            raise _cannot(value, "re.Pattern[str]", where)
        return {"flags": value.flags, "pattern": value.pattern}

    def dec(doc: Any) -> Any:
        if type(doc) is not dict or set(doc) != {"flags", "pattern"} or type(doc["pattern"]) is not str \
                or type(doc["flags"]) is not int:
            raise _Mismatch(f"expected a regex {{flags, pattern}}, got {_kind(doc)}")
        return re.compile(doc["pattern"], doc["flags"])  # re.error: a format error (decode)

    c.enc, c.dec, c.shape, c.structured = enc, dec, "re.Pattern[str]", True
    c.accepts = lambda v: isinstance(v, re.Pattern)
    return c


def _dataclass(c: _Codec, cls: type) -> _Codec:
    c.structured = True
    c.accepts = lambda v: type(v) is cls
    c.shape = f"{cls.__module__}.{cls.__qualname__}"  # what a self-reference sees while building
    fields = dataclasses.fields(cls)
    if any(not f.init for f in fields):
        raise TypeError(f"{cls.__qualname__}: a dataclass with init=False fields cannot be cached")
    hints = typing.get_type_hints(cls, sys.modules[cls.__module__].__dict__)
    names = [f.name for f in fields]
    codecs = [_codec(hints[n]) for n in names]
    c.shape = f"{cls.__module__}.{cls.__qualname__}(" + ", ".join(
        f"{n}: {k.shape}" for n, k in zip(names, codecs)) + ")"
    pairs = list(zip(names, codecs))
    decs = [k.dec for k in codecs]
    exacts = [k.exact for k in codecs]
    n_fields = len(pairs)
    label = cls.__qualname__

    triples = [(n, k, ex) for (n, k), ex in zip(pairs, exacts)]

    def enc(value: Any, where: str) -> Any:
        if type(value) is not cls:
            raise _cannot(value, label, where)
        # a plain scalar field as it is (no call, no path string); anything else by its codec
        return [v if ex is not None and type(v := getattr(value, n)) in ex else k.enc(getattr(value, n), f"{where or label}.{n}")
                for n, k, ex in triples]

    def dec(doc: Any) -> Any:
        if type(doc) is not list or len(doc) != n_fields:
            raise _Mismatch(f"expected {label} ({n_fields} fields), got {_kind(doc)}")
        try:
            # a plain scalar field is checked inline (no call); anything else by its codec
            args = [v if ex is not None and type(v) in ex else d(v) for d, ex, v in zip(decs, exacts, doc)]
        except _Mismatch as exc:
            exc.path.append(f".{names[_failing(decs, doc)]}")
            raise
        return cls(*args)

    c.enc, c.dec = enc, dec
    return c


def _unsupported(c: _Codec, tp: Any) -> _Codec:
    shape = f"unsupported {tp!r}"

    def enc(value: Any, where: str) -> Any:
        raise TypeError(
            f"{where or '<value>'}: a value annotated {tp!r} cannot be cached as plain JSON; annotate the field "
            "with str, int, float, bool, None, Literal, an Enum, tuple/list/frozenset, dict[str, …], re.Pattern "
            "or a dataclass of those (loom_compiler.bundle.cache_codec)"
        )

    def dec(doc: Any) -> Any:
        raise _Mismatch(f"no value of {tp!r} can be read from a cache entry")

    c.enc, c.dec, c.shape = enc, dec, shape
    c.accepts = lambda v: False
    return c


def _cannot(value: Any, shape: str, where: str) -> TypeError:
    return TypeError(f"{where or '<value>'}: {type(value).__name__} value {value!r:.80} is not a {shape}; "
                     "it cannot be cached (loom_compiler.bundle.cache_codec)")


def _kind(doc: Any) -> str:
    if isinstance(doc, list):
        return f"a list of {len(doc)}"
    if isinstance(doc, dict):
        return "an object"
    return f"{type(doc).__name__} {doc!r:.40}"
