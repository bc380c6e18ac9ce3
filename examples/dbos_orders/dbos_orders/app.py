"""The recipe: DBOS's ``application_version`` is loom's project version id.

DBOS recovers a PENDING workflow only on a process of the application version it started on.
Its default version hashes ``inspect.getsource`` of the workflow functions: a comment strands every
PENDING workflow, a helper edit changes nothing. loom's id changes exactly when the behaviour of
some workflow (or of anything it runs) changes.
"""

from __future__ import annotations

import os

from dbos import DBOS, DBOSConfig

from loom_runtime import version_id


def launch(database_url: str | None = None) -> None:
    config: DBOSConfig = {
        "name": "dbos-orders",
        "system_database_url": database_url or os.environ.get("DBOS_SYSTEM_DATABASE_URL", "sqlite:///dbos_orders.sqlite"),
        "application_version": version_id("dbos_orders"),
    }
    DBOS(config=config)
    from . import inventory  # noqa: F401  (registers the workflows before launch)

    DBOS.launch()
