"""Journal stores named by URL: one spelling for the CLI (``--journal``) and for services.

``open_journal(url)`` maps

- ``memory:``                       → :class:`~loom_runtime.journal.memory.MemoryJournal` (nothing survives)
- ``sqlite:///relative/path.db``    → :class:`~loom_runtime.journal.sqlite.SqliteJournal` on ``relative/path.db``
- ``sqlite:////abs/path.db``        → ... on ``/abs/path.db`` (SQLAlchemy's convention: the path is what
  follows the third slash)
- ``postgresql://user@host:port/db`` (or ``postgres://``) → :class:`~loom_runtime.journal.postgres.PostgresJournal`;
  a ``schema=NAME`` query parameter puts the journal's tables in that schema (the rest of the URL
  goes to libpq unchanged, so ``sslmode=`` and friends work)
- a plain filesystem path (no ``scheme:``) → a SQLite journal, as ``Runtime(journal="path")`` does

and refuses anything else with a :class:`~loom_runtime.errors.JournalError` that lists what is
accepted. Passwords never appear in error messages (:func:`redact_url`).

``open_journal(url, read_only=True)`` is what a tool that only *reads* a journal uses (``loom
census``, ``deploy-check``, ``gc``, ``export``, a replay of production histories): it never creates,
migrates or alters the store, and refuses with a clear ``JournalError`` anything that is not a loom
journal of a schema this runtime knows — a missing, empty, text or foreign SQLite file, a
PostgreSQL database or schema without loom's tables, a newer journal schema (``JournalSchemaError``)
— and ``memory:`` (empty by definition). Every write through such a store fails.

Rejected: guessing the store from a file extension (``x.db`` could be anything) and a plugin
registry of schemes (three stores do not need one; a fourth adds a branch here).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..errors import JournalError
from .protocol import JournalStore

__all__ = ["open_journal", "redact_url", "JOURNAL_URL_FORMS"]

JOURNAL_URL_FORMS = "memory:, sqlite:///relative/path.db, sqlite:////absolute/path.db, postgresql://user@host:port/dbname"

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


# libpq also takes a password as a key=value DSN entry or a URL query parameter.
_PASSWORD_PARAM = re.compile(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]+)", re.IGNORECASE)


def redact_url(url: str) -> str:
    """``url`` (or a key=value DSN) with any password replaced by ``***`` (for messages and logs)."""
    url = _PASSWORD_PARAM.sub(r"\1***", url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable journal URL>"
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    userinfo = (parts.username or "") + ":***"
    return urlunsplit(parts._replace(netloc=f"{userinfo}@{netloc[-1]}"))


def open_journal(url: str, *, read_only: bool = False) -> JournalStore:
    """Open (and create if needed) the journal store that ``url`` names; with ``read_only``, open an
    existing loom journal for reading only. See the module docstring."""
    if not isinstance(url, str) or not url.strip():
        raise JournalError(f"journal URL must be a non-empty string, got {url!r}; use one of: {JOURNAL_URL_FORMS}")
    url = url.strip()
    m = _SCHEME.match(url)
    # A one-letter "scheme" is a Windows drive (C:\journal.db): a path.
    if m is None or len(m.group(1)) == 1:
        return _sqlite(url, url, read_only)
    scheme = m.group(1).lower()
    if scheme == "memory":
        if url[len("memory:") :].strip("/"):
            raise JournalError(f"journal URL {url!r}: `memory:` takes nothing after the colon")
        if read_only:
            raise JournalError("journal URL memory: names an empty in-memory journal; give the service's journal URL")
        from .memory import MemoryJournal

        return MemoryJournal()
    if scheme == "sqlite":
        rest = url[len("sqlite:") :]
        if not rest.startswith("///") or len(rest) == 3:
            raise JournalError(
                f"journal URL {url!r}: a SQLite URL is sqlite:///relative/path.db or sqlite:////absolute/path.db "
                "(three slashes, then the path)"
            )
        path = rest[3:].split("?", 1)[0]
        return _sqlite(path, url, read_only)
    if scheme in ("postgresql", "postgres"):
        dsn, schema = _split_schema(url)
        from .postgres import PostgresJournal

        return PostgresJournal(dsn, schema=schema, read_only=read_only)
    raise JournalError(f"journal URL {redact_url(url)!r}: unsupported scheme `{scheme}:`; use one of: {JOURNAL_URL_FORMS}")


def _sqlite(path: str, url: str, read_only: bool) -> JournalStore:
    from .sqlite import SqliteJournal

    if not path:
        raise JournalError(f"journal URL {url!r} names no file")
    return SqliteJournal(path, read_only=read_only)


def _split_schema(url: str) -> tuple[str, str | None]:
    """Take our own ``schema=`` parameter out of a PostgreSQL URL (libpq rejects unknown ones)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schemas = [v for k, v in query if k == "schema"]
    if len(schemas) > 1 or (schemas and not schemas[0]):
        raise JournalError(f"journal URL {redact_url(url)!r}: give `schema=` once, with a name")
    rest = [(k, v) for k, v in query if k != "schema"]
    return urlunsplit(parts._replace(query=urlencode(rest))), (schemas[0] if schemas else None)
