"""The recipe: a Temporal worker whose Worker Deployment build id is loom's project version id.

With Worker Versioning a workflow is pinned to the build id it started on, and a new build id
must be a new deployment exactly when replaying the old histories on the new code could differ.
Temporal's default derivation hashes module bytecode (blind to what replay re-runs); loom's id is
the sha256 over every workflow's body-aware codeHash, handlers included.
"""

from __future__ import annotations

import asyncio

from temporalio.api.workflowservice.v1 import SetWorkerDeploymentCurrentVersionRequest
from temporalio.client import Client
from temporalio.service import RPCError
from temporalio.common import VersioningBehavior, WorkerDeploymentVersion
from temporalio.worker import Worker, WorkerDeploymentConfig

from loom_runtime import version_id

from .activities import Mailer, charge
from .workflows import OrderWorkflow, ShipOrder

TASK_QUEUE = "orders"
DEPLOYMENT = "orders"


def deployment_config() -> WorkerDeploymentConfig:
    return WorkerDeploymentConfig(
        version=WorkerDeploymentVersion(deployment_name=DEPLOYMENT, build_id=version_id("temporal_orders")),
        use_worker_versioning=True,
        default_versioning_behavior=VersioningBehavior.PINNED,
    )


def make_worker(client: Client) -> Worker:
    return Worker(
        client,
        task_queue=TASK_QUEUE,
        workflows=[OrderWorkflow, ShipOrder],
        activities=[charge, Mailer("shop@example.com").send],
        deployment_config=deployment_config(),
    )


async def make_current(client: Client, build_id: str | None = None, *, attempts: int = 50) -> None:
    """Route new workflows to this build (``temporal worker deployment set-current-version`` does
    the same from a deploy script). The version exists once a worker of it has polled, so this
    retries briefly after the worker starts."""
    request = SetWorkerDeploymentCurrentVersionRequest(
        namespace=client.namespace, deployment_name=DEPLOYMENT, build_id=build_id or version_id("temporal_orders"),
        identity="loom-recipe")
    for attempt in range(attempts):
        try:
            await client.workflow_service.set_worker_deployment_current_version(request)
            return
        except RPCError:
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(0.2)
