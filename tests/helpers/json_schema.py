"""A small JSON Schema (2020-12) validator for the subset ``docs/schemas`` uses.

Why not the ``jsonschema`` package: it brings ``attrs``, ``referencing`` and a Rust extension
(``rpds-py``) into the test environment for three schemas. This validator implements exactly the
keywords the schemas use and **refuses every other keyword**, so a schema that grows a keyword it
does not understand fails loudly instead of validating nothing (the silent failure mode a subset
validator would otherwise have).

Keywords: ``type``, ``properties``, ``required``, ``additionalProperties`` (bool or schema),
``items``, ``minItems``, ``enum``, ``const``, ``pattern``, ``minLength``, ``minimum``, ``anyOf``,
``allOf``, ``if``/``then``, ``$ref`` (``#/$defs/<name>`` only); annotations (``$schema``, ``$id``,
``title``, ``description``, ``$defs``) are accepted and ignored.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["SchemaKeywordError", "errors", "validate"]

_ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs"}
_KEYWORDS = {"type", "properties", "required", "additionalProperties", "items", "minItems", "enum", "const",
             "pattern", "minLength", "minimum", "anyOf", "allOf", "if", "then", "$ref"}
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class SchemaKeywordError(ValueError):
    """The schema uses a keyword this validator does not implement."""


def errors(instance: Any, schema: dict[str, Any], root: dict[str, Any] | None = None, at: str = "$") -> list[str]:
    """Every way ``instance`` fails ``schema``, as ``"<json path>: <why>"`` strings (empty: valid)."""
    root = schema if root is None else root
    unknown = set(schema) - _KEYWORDS - _ANNOTATIONS
    if unknown:
        raise SchemaKeywordError(f"{at}: unsupported schema keyword(s) {sorted(unknown)}")
    out: list[str] = []
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise SchemaKeywordError(f"{at}: only #/$defs/ references are supported, got {ref!r}")
        out += errors(instance, root["$defs"][ref[len("#/$defs/"):]], root, at)
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[k](instance) for k in kinds):
            return out + [f"{at}: expected {' or '.join(kinds)}, got {type(instance).__name__}"]
    if "const" in schema and instance != schema["const"]:
        out.append(f"{at}: expected {schema['const']!r}, got {instance!r}")
    if "enum" in schema and instance not in schema["enum"]:
        out.append(f"{at}: {instance!r} is not one of {schema['enum']!r}")
    if isinstance(instance, str):
        if "pattern" in schema and re.search(schema["pattern"], instance) is None:
            out.append(f"{at}: {instance!r} does not match {schema['pattern']!r}")
        if len(instance) < schema.get("minLength", 0):
            out.append(f"{at}: shorter than {schema['minLength']}")
    if "minimum" in schema and _TYPES["number"](instance) and instance < schema["minimum"]:
        out.append(f"{at}: {instance} is below {schema['minimum']}")
    if isinstance(instance, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in instance:
                out.append(f"{at}: missing required key {key!r}")
        for key, value in instance.items():
            where = f"{at}.{key}"
            if key in props:
                out += errors(value, props[key], root, where)
            elif schema.get("additionalProperties") is False:
                out.append(f"{at}: unexpected key {key!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(value, schema["additionalProperties"], root, where)
    if isinstance(instance, list):
        if len(instance) < schema.get("minItems", 0):
            out.append(f"{at}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(instance):
                out += errors(item, schema["items"], root, f"{at}[{i}]")
    if "anyOf" in schema and not any(not errors(instance, s, root, at) for s in schema["anyOf"]):
        out.append(f"{at}: matches none of anyOf")
    for sub in schema.get("allOf", ()):
        out += errors(instance, sub, root, at)
    if "if" in schema and not errors(instance, schema["if"], root, at) and "then" in schema:
        out += errors(instance, schema["then"], root, at)
    return out


def validate(instance: Any, schema: dict[str, Any]) -> None:
    """Raise ``AssertionError`` listing every problem when ``instance`` does not fit ``schema``."""
    problems = errors(instance, schema)
    assert not problems, "\n".join(problems[:20])
