"""Effects that leave a trace: a marker file named after what ran."""

import os
from pathlib import Path

from loom_runtime import step


def mark(name: str) -> None:
    Path(os.environ["LOOM_TEST_MARKERS"], name).write_text("ran\n", encoding="utf-8")


@step
def reserve(sku: str) -> str:
    mark("step-reserve")
    return f"reserved:{sku}"


@step
def charge(amount: int) -> str:
    mark("step-charge")
    return f"charged:{amount}"


def approve() -> bool:  # a decider: real work (a model call, a lookup), never replayed
    mark("decider-approve")
    return True


def pick() -> str:
    mark("decider-pick")
    return "air"
