"""``[tool.loom]``: one loader, one frozen config object.

Precedence is flags > ``[tool.loom]`` > defaults. ``load_config`` walks up from ``start`` to the
nearest ``pyproject.toml`` that has a ``[tool.loom]`` table (else the nearest ``pyproject.toml``,
else ``start`` itself with defaults); ``LoomConfig.root`` is the directory holding it, and every
relative path the toolchain prints is relative to that root.

Every wrong key or type raises ``ConfigError`` naming the key (``tool.loom.<key>``) and the file,
like Hatchling does: a typo in a config key must never be silently ignored, because a missing
decorator name silently drops flows from the manifest.

``framework`` (``"loom"`` by default, or ``"temporal"``, ``"dbos"``, ``"prefect"``: DESIGN §8)
picks a profile (``loom_compiler.frameworks``) that contributes its flow and step decorators and
its closure rules; ``decorators``/``step-decorators`` listed explicitly *extend* the profile's
(``LoomConfig.decorators`` is the union, profile first), so a project on Temporal that also has
its own decorator lists just that one. An unknown value is a ``ConfigError`` naming
``tool.loom.framework`` and the allowed values.

``LoomConfig.digest`` covers exactly the settings that influence ``analyse_module`` (decorators,
step decorators, package roots, framework), so a cache keyed by it stays valid when ``out`` or ``history``
change.

``[tool.loom.check]`` (a sub-table, read by ``loom check``/``loom diff``): ``base`` (the git ref to
compare against when ``--base`` is not given), ``manifest`` (the build manifest, relative to the
root, whose versions count as *kept*; default ``<out>/manifest.json``), ``ignore`` (flow ids the
gate does not judge) and ``strict`` (``loom build`` fails, instead of warning, on a step id a flow
executes that its ``steps``/``step_families`` do not declare). Unknown sub-keys are refused like
top-level ones.

``LoomConfig.configured`` says whether a ``[tool.loom]`` table was found at all: without one the
defaults apply to whatever directory the walk stopped at (a repository root holding tests and
benchmarks, say), and the commands say so in one line (``scan_notice``) instead of leaving the
user to guess from a wall of duplicate-id errors why their tests were fingerprinted.

Rejected: a mutable settings object patched by each command (precedence then depends on call
order), and reading ``setup.cfg``/``loom.toml`` too (one place to look is easier to explain).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loom_runtime.errors import ConfigError
from loom_runtime.hashing import sha256_digest

from .frameworks import FRAMEWORKS, Profile, profile_for

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = ["CheckSettings", "LoomConfig", "load_config", "find_pyproject", "scan_notice", "DEFAULT_DECORATORS", "DEFAULT_STEP_DECORATORS"]

DEFAULT_DECORATORS = ("loom_runtime.flow",)
DEFAULT_STEP_DECORATORS = ("loom_runtime.step",)
DEFAULT_OUT = "build/loom"

# key in pyproject -> (attribute name, kind); kind "list" means a list of non-empty strings
_KEYS: dict[str, tuple[str, str]] = {
    "framework": ("framework", "framework"),
    "packages": ("packages", "list"),
    "out": ("out", "str"),
    "decorators": ("decorators", "list"),
    "step-decorators": ("step_decorators", "list"),
    "history": ("history", "list"),
    "exclude": ("exclude", "list"),
    "check": ("check", "table"),
}

# [tool.loom.check] sub-key -> (attribute of CheckSettings, kind)
_CHECK_KEYS: dict[str, tuple[str, str]] = {
    "framework": ("framework", "framework"),
    "base": ("base", "str"),
    "manifest": ("manifest", "str"),
    "ignore": ("ignore", "list"),
    "strict": ("strict", "bool"),
}


@dataclass(frozen=True, slots=True)
class CheckSettings:
    """``[tool.loom.check]``: the CI gate's defaults (flags override each)."""

    base: str | None = None
    manifest: str | None = None
    ignore: tuple[str, ...] = ()
    #: ``loom build`` refuses (instead of warning about) an undeclared literal or f-string step id
    strict: bool = False


@dataclass(frozen=True, slots=True)
class LoomConfig:
    """The settings in force. ``decorators``/``step_decorators`` are the effective lists: the
    framework profile's, then every other name given (``__post_init__`` adds the profile's to
    whatever was passed, so a config built in code extends the profile like one read from TOML)."""

    root: Path
    packages: tuple[str, ...] = ()
    out: str = DEFAULT_OUT
    decorators: tuple[str, ...] = ()
    step_decorators: tuple[str, ...] = ()
    history: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    check: CheckSettings = CheckSettings()
    framework: str = "loom"
    #: the pyproject.toml the values came from (None: defaults only)
    pyproject: Path | None = field(default=None, compare=False)
    #: whether that pyproject.toml has a ``[tool.loom]`` table (False: the defaults apply)
    configured: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        if self.framework not in FRAMEWORKS:
            raise ConfigError(_unknown_framework(self.framework, "configuration"), key="tool.loom.framework")
        prof = profile_for(self.framework)
        object.__setattr__(self, "decorators", _union(prof.flow_decorators, self.decorators))
        object.__setattr__(self, "step_decorators", _union(prof.step_decorators, self.step_decorators))

    @property
    def profile(self) -> Profile:
        return profile_for(self.framework)

    @property
    def out_dir(self) -> Path:
        return self.root / self.out

    @property
    def walk_exclude(self) -> tuple[str, ...]:
        """``exclude`` plus the output directory: emitted chunks are copies of flows, never sources."""
        return (*self.exclude, self.out.strip("/"))

    @property
    def digest(self) -> str:
        """sha256 over the settings that change what ``analyse_module`` returns."""
        doc = {
            "decorators": list(self.decorators),
            "framework": self.framework,
            "packages": list(self.packages),
            "step-decorators": list(self.step_decorators),
        }
        data = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
        return sha256_digest(data)

    def is_first_party(self, module: str) -> bool:
        """Whether ``module`` lies under a configured package root (by dotted prefix)."""
        return any(module == p or module.startswith(p + ".") for p in self.packages)


def _union(first: Sequence[str], then: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*first, *then)))


def _unknown_framework(value: object, where: str) -> str:
    return (f"{where}: `tool.loom.framework` must be one of {', '.join(repr(f) for f in FRAMEWORKS)}, got {value!r}")


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml with a ``[tool.loom]`` table, else the nearest one at all."""
    start = start.resolve()
    if start.is_file():
        start = start.parent
    nearest: Path | None = None
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            if nearest is None:
                nearest = candidate
            if _has_loom_table(candidate):
                return candidate
    return nearest


def _has_loom_table(path: Path) -> bool:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        # a broken pyproject is reported when it is actually loaded, not while searching
        return b"[tool.loom]" in path.read_bytes() if path.exists() else False
    return isinstance(data.get("tool"), dict) and "loom" in data["tool"]


def load_config(start: Path | str = ".", **overrides: Any) -> LoomConfig:
    """Load ``[tool.loom]`` found from ``start`` upwards and apply ``overrides`` (flags).

    Override keys are the attribute names (``packages``, ``out``, ``decorators``,
    ``step_decorators``, ``history``, ``exclude``, ``root``); ``None`` means "flag not given".
    """
    start = Path(start)
    pyproject = find_pyproject(start)
    values: dict[str, Any] = {}
    root = (start if start.is_dir() else start.parent).resolve()
    configured = False
    if pyproject is not None:
        root = pyproject.parent
        values = _read_table(pyproject)
        configured = _has_loom_table(pyproject)
    for name, value in overrides.items():
        if value is None:
            continue
        if name == "root":
            root = Path(value).resolve()
            continue
        key = _key_for_attribute(name)
        attr, kind = _KEYS[key]
        values[attr] = _check(key, value, kind, path="command line")
    return LoomConfig(root=root, pyproject=pyproject, configured=configured, **values)


def scan_notice(config: LoomConfig, command: str, paths: Sequence[Path] = ()) -> str | None:
    """One line saying what ``command`` scans when no ``[tool.loom]`` table was found, else None.

    Without the table nothing limits the walk: every Python file under the root (tests,
    benchmarks, vendored copies) is a flow candidate and every module is first-party, which at a
    repository root reads as a wall of duplicate-id errors with no hint of the cause.
    """
    if config.configured:
        return None
    where = (f"{config.pyproject} has no [tool.loom] table" if config.pyproject is not None
             else f"no pyproject.toml found from {config.root} upwards")
    if paths:
        scanned = ", ".join(str(p) for p in paths)
    else:
        scanned = f"every Python file under {config.root}"
    packages = ", ".join(config.packages) if config.packages else "none, so every module counts as first-party"
    return (f"{command}: {where}; scanning {scanned} with the defaults (packages: {packages}; "
            f"decorators: {', '.join(config.decorators)}). To scan only your code, add to the project's "
            "pyproject.toml: [tool.loom] packages = [\"yourpkg\"] (and exclude = [\"tests/**\"] for test flows)")


def _key_for_attribute(name: str) -> str:
    for key, (attr, _kind) in _KEYS.items():
        if attr == name:
            return key
    raise ConfigError(f"unknown option `{name}`; expected one of {', '.join(a for a, _ in _KEYS.values())}", key=name)


def _read_table(pyproject: Path) -> dict[str, Any]:
    where = str(pyproject)
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read: {exc.strerror}", path=where) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})", path=where) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: invalid TOML: {exc}", path=where) from None
    tool = data.get("tool", {})
    if not isinstance(tool, Mapping):
        raise ConfigError(f"{where}: `tool` must be a table", key="tool", path=where)
    table = tool.get("loom", {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: `tool.loom` must be a table, got {type(table).__name__}", key="tool.loom", path=where)
    return _checked_table("tool.loom", table, _KEYS, path=where)


def _checked_table(prefix: str, table: Mapping[str, Any], keys: Mapping[str, tuple[str, str]], *, path: str) -> dict[str, Any]:
    """``{attribute: checked value}`` for a TOML table; an unknown key is an error naming it."""
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in keys:
            known = ", ".join(sorted(keys))
            raise ConfigError(f"{path}: unknown key `{prefix}.{key}`; known keys: {known}", key=f"{prefix}.{key}", path=path)
        attr, kind = keys[key]
        values[attr] = _check(f"{prefix}.{key}", value, kind, path=path)
    return values


def _check(key: str, value: Any, kind: str, *, path: str) -> Any:
    if kind == "table":
        if isinstance(value, CheckSettings):
            return value
        if not isinstance(value, Mapping):
            raise ConfigError(f"{path}: `{key}` must be a table, got {value!r}", key=key, path=path)
        return CheckSettings(**_checked_table(key, value, _CHECK_KEYS, path=path))
    if kind == "framework":
        if not isinstance(value, str) or value not in FRAMEWORKS:
            raise ConfigError(_unknown_framework(value, path), key="tool.loom.framework", path=path)
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{path}: `{key}` must be true or false, got {value!r}", key=key, path=path)
        return value
    if kind == "str":
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{path}: `{key}` must be a non-empty string, got {value!r}", key=key, path=path)
        return value
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigError(f"{path}: `{key}` must be a list of strings, got {value!r}", key=key, path=path)
    for item in value:
        if not isinstance(item, str) or not item.strip():
            raise ConfigError(
                f"{path}: every entry of `{key}` must be a non-empty string, got {item!r}", key=key, path=path
            )
    if key.endswith(("decorators", "packages")):
        for item in value:
            if not all(part.isidentifier() for part in item.split(".")):
                raise ConfigError(
                    f"{path}: `{key}` entry {item!r} is not a dotted Python name (e.g. 'loom_runtime.flow')",
                    key=key,
                    path=path,
                )
    return tuple(value)
