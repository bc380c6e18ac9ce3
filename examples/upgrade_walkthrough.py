"""Watch a durable flow survive three deploys. Run it: ``python examples/upgrade_walkthrough.py``.

What it does, with real tools only: it copies ``examples/shop`` *as committed* (``git archive``, so
your own edits to the example, such as the one ``./dev example`` suggests, are left alone and do
not change the story; outside a git checkout, the files on disk with the discount rate reset to the
shipped 10%) to a temporary directory, builds it
with ``loom build``, and "deploys" each release as its own directory (the package plus its bundle in
``shop/_loom/``, exactly what the wheel's build hook ships). Every "process" is a separate
``python -m shop`` subprocess reading the packaged bundle (``Registry.from_package("shop")``) and
one shared SQLite journal, the way workers of successive releases would.

1. Release v1 starts a large order; it parks waiting for a manager's approval.
2. v2 changes the member discount and is deployed. The manager approves: the order finishes on
   v1's code, from the chunk v2's bundle still carries. A new order starts on v2.
3. v3 skips the stock reservation for digital goods, and its author claims (``compatible_with``)
   that v2's in-flight orders may run on it. It was built from a clean checkout, so its bundle has
   no v2 chunk. Approving the v2 order re-runs it on v3, which no longer asks for the `reserve` step
   the journal recorded: the runtime refuses before any effect (nobody is charged) and parks it.
4. The fix: build v3 cumulatively (the bundle keeps v2's chunk) and retry; the order finishes on v2.

Options: ``--keep DIR`` works in DIR and leaves it for you to explore (``python -m shop --journal
DIR/journal.db status o-1002`` from ``DIR/releases/<name>``).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent / "shop"
WIDTH = 100


class Walkthrough:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.work = base / "checkout"  # the developer's working copy
        self.releases = base / "releases"
        self.journal = base / "journal.db"
        self.step_no = 0
        self.origin = ""

    # -- printing -----------------------------------------------------------------------------

    def step(self, title: str, story: str) -> None:
        self.step_no += 1
        print(f"\n{'=' * WIDTH}\n{self.step_no}. {title}\n{'=' * WIDTH}")
        print(textwrap.fill(story, WIDTH))

    @staticmethod
    def say(text: str) -> None:
        print(textwrap.fill(text, WIDTH, initial_indent="   ", subsequent_indent="   "))

    @staticmethod
    def show(command: str, output: str) -> None:
        print(f"\n   $ {command}")
        for line in output.rstrip("\n").splitlines():
            print(textwrap.fill(line, WIDTH, initial_indent="     ", subsequent_indent="       "))

    # -- tools --------------------------------------------------------------------------------

    def loom_build(self, project: Path | None = None) -> str:
        """``loom build`` in ``project`` (default: the working copy); show what the manifest holds."""
        project = project or self.work
        args = [sys.executable, "-m", "loom_compiler", "build", ".", "--no-cache", "--quiet"]
        proc = subprocess.run(args, cwd=project, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"loom build failed:\n{proc.stdout}{proc.stderr}")
        manifest = json.loads((project / "build" / "loom" / "manifest.json").read_text())
        lines = []
        for flow_id, entry in sorted(manifest["flows"].items()):
            versions = ", ".join(
                short(h) + (" (current)" if h == entry["current"] else "") for h in entry["versions"]
            )
            lines.append(f"{flow_id}: {len(entry['versions'])} version(s): {versions}")
        where = "" if project == self.work else f"        # in {project.relative_to(self.base)}"
        self.show(f"loom build{where}", "\n".join(lines))
        return manifest["flows"]["checkout"]["current"]

    def release(self, name: str, bundle: Path) -> Path:
        """What installing the wheel of this release would put on sys.path: shop/ with shop/_loom/."""
        root = self.releases / name
        shutil.copytree(self.work / "shop", root / "shop", ignore=shutil.ignore_patterns("__pycache__", "_loom"))
        shutil.copytree(bundle, root / "shop" / "_loom", ignore=shutil.ignore_patterns(".*"))
        self.say(f"deployed release {name}: {root.relative_to(self.base)}/shop (bundle in shop/_loom/)")
        return root

    def process(self, release: Path, *command: str) -> str:
        """One worker process of ``release`` running one ``python -m shop`` command."""
        args = [sys.executable, "-m", "shop", "--journal", str(self.journal), *command]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        proc = subprocess.run(args, cwd=release, capture_output=True, text=True, env=env)
        output = proc.stdout + proc.stderr
        shown = " ".join(f"'{c}'" if c.startswith("{") else c for c in command)
        self.show(f"python -m shop {shown}        # a {release.name} worker", output)
        return output

    def edit(self, rel: str, old: str, new: str, what: str) -> None:
        path = self.work / rel
        text = path.read_text()
        if old not in text:
            raise SystemExit(
                f"The walkthrough makes its edits to examples/shop as shipped, but its copy of {rel} has no "
                f"line {old.strip()!r}: the example was changed ({self.origin}). Restore it with "
                "`git checkout examples/shop` and run the walkthrough again.")
        path.write_text(text.replace(old, new, 1))
        self.say(f"edit {rel}: {what}")

    def copy_example(self) -> None:
        """The example as committed (``git archive``), else the files on disk with the discount reset."""
        ignore = shutil.ignore_patterns("build", "dist", ".loom-cache", "__pycache__", "_loom", "*.db")
        committed = committed_tree(EXAMPLE)
        if committed is not None:
            self.work.mkdir(parents=True)
            with tarfile.open(fileobj=io.BytesIO(committed)) as tar:
                for member in tar.getmembers():
                    if not (member.isfile() or member.isdir()) or member.name.startswith(("/", "..")):
                        continue  # a committed example holds plain files only
                    tar.extract(member, self.work)
            self.origin = "the copy is examples/shop as committed at HEAD"
            return
        shutil.copytree(EXAMPLE, self.work, ignore=ignore)
        pricing = self.work / "shop" / "pricing.py"
        pricing.write_text(re.sub(r"(?m)^DISCOUNT_RATE = .*$", "DISCOUNT_RATE = 0.1", pricing.read_text()))
        self.origin = "not a git checkout, so the copy is the files on disk"

    # -- the story ----------------------------------------------------------------------------

    def run(self) -> None:
        self.copy_example()
        print(f"Working in {self.base} ({self.origin}; the journal is {self.journal.name}).")

        desk = {"id": "o-1001", "sku": "desk", "member": True, "items": [{"sku": "desk", "price": 650.0}]}
        course = {"id": "o-1002", "sku": "course", "member": True,
                  "items": [{"sku": "course", "price": 800.0, "digital": True}]}

        self.step("Release v1: build, deploy, start an order",
                  "loom build fingerprints every flow (its body and every helper it calls) and writes one chunk "
                  "per code version plus a manifest. A member orders a 650.00 desk: 10% off is 585.00, above "
                  "the 500.00 review limit, so the flow parks at the manager-approval gate.")
        v1_hash = self.loom_build()
        v1 = self.release("v1", self.work / "build" / "loom")
        self.process(v1, "start", "checkout", json.dumps(desk), "--id", "o-1001")

        self.step("Release v2: change a helper, deploy while o-1001 waits",
                  "Members now get 15% off. pricing.py is not the flow's own file, but the discount helper is "
                  "in the checkout closure, so checkout gets a new codeHash; refund does not call it and keeps "
                  "its own. The build is cumulative: v1's chunk stays in the manifest and ships with v2.")
        self.edit("shop/pricing.py", "DISCOUNT_RATE = 0.1\n", "DISCOUNT_RATE = 0.15\n", "DISCOUNT_RATE 0.1 -> 0.15")
        v2_hash = self.loom_build()
        v2 = self.release("v2", self.work / "build" / "loom")
        self.process(v2, "versions")

        self.step("v1's order finishes on v1's code",
                  "The manager approves o-1001 and a v2 worker resumes it. The execution recorded v1's codeHash "
                  "when it started, so the registry serves it v1's chunk: it is charged 585.00 (10% off), "
                  "exactly what the customer was quoted, not v2's 552.50.")
        out = self.process(v2, "resume", "o-1001", json.dumps({"approved": True, "by": "dana"}))
        check(out, "585.0", "o-1001 should finish with v1's price")

        self.step("New orders start on v2",
                  "A member buys an 800.00 online course (digital, nothing to ship). 15% off is 680.00: it "
                  "waits for approval too, this time on v2's code. Its journal already holds the `reserve` step.")
        self.process(v2, "start", "checkout", json.dumps(course), "--id", "o-1002")

        self.step("Release v3 diverges, and is refused",
                  "v3 stops reserving stock for digital-only orders. Its author believes the change is "
                  "replay-safe and lists v2's codeHash in compatible_with. CI built it from a clean checkout, "
                  "so v3's bundle has no v2 chunk: o-1002 will be re-run on v3's body.")
        self.edit("shop/flows.py", '    ctx.execute("reserve", reserve, order["sku"])\n',
                  '    if not all(item.get("digital") for item in order["items"]):\n'
                  '        ctx.execute("reserve", reserve, order["sku"])\n',
                  "reserve stock only when something physical ships")
        self.edit("shop/flows.py", '    step_families=["pack"],\n)\ndef checkout',
                  f'    step_families=["pack"],\n    compatible_with=["{v2_hash}"],\n)\ndef checkout',
                  f"compatible_with=[\"{short(v2_hash)}…\"] on checkout")
        clean = self.base / "clean-checkout"
        shutil.copytree(self.work, clean, ignore=shutil.ignore_patterns("build", ".loom-cache", "__pycache__"))
        self.loom_build(clean)
        v3 = self.release("v3", clean / "build" / "loom")
        self.process(v3, "versions")
        self.say("The manager approves o-1002 and a v3 worker resumes it:")
        out = self.process(v3, "resume", "o-1002", json.dumps({"approved": True, "by": "dana"}))
        check(out, "reserve", "the refusal should name the skipped step")
        self.process(v3, "status", "o-1002")
        self.say("Nothing ran under the changed body: no charge, no parcel. The order is parked on the "
                 "reserved gate __loom_diverged__ until a release that can replay it is deployed.")

        self.step("The fix: ship v2's chunk with v3, then retry",
                  "Built cumulatively (the normal `loom build`), v3's bundle keeps every earlier version. A "
                  "worker of that release retries o-1002: it is pinned to v2's chunk and completes at 680.00. "
                  "New digital orders run on v3 and skip the reservation.")
        self.loom_build()
        v3_fixed = self.release("v3-fixed", self.work / "build" / "loom")
        out = self.process(v3_fixed, "retry", "o-1002")
        check(out, "680.0", "o-1002 should finish on v2's chunk")
        self.process(v3_fixed, "start", "checkout", json.dumps(dict(course, id="o-1003", items=[
            {"sku": "ebook", "price": 30.0, "digital": True}])), "--id", "o-1003")

        print(f"\n{'=' * WIDTH}\nDone. codeHashes: v1 {short(v1_hash)}, v2 {short(v2_hash)}. Every process read "
              "its release's packaged bundle and one SQLite journal.")


def committed_tree(directory: Path) -> bytes | None:
    """``directory`` as committed at HEAD, as a tar archive, or None outside a git checkout."""
    def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, check=False)

    try:
        where = git(directory, "rev-parse", "--show-toplevel", "--show-prefix")
    except OSError:  # no git on this machine
        return None
    if where.returncode != 0:
        return None
    top, _, prefix = where.stdout.decode().partition("\n")
    # archived from the top: git refuses `archive` run inside a directory it does not track
    archive = git(Path(top.strip()), "archive", "--format=tar", "HEAD:" + prefix.strip().rstrip("/"))
    return archive.stdout if archive.returncode == 0 and archive.stdout else None


def short(code_hash: str) -> str:
    return code_hash[7:19]


def check(output: str, expected: str, what: str) -> None:
    if not re.search(re.escape(expected), output):
        raise SystemExit(f"walkthrough: {what}, but the output was:\n{output}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, default=None, help="work in this (new) directory and keep it")
    args = parser.parse_args(argv)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=False)
        Walkthrough(args.keep.resolve()).run()
        return 0
    with tempfile.TemporaryDirectory(prefix="loom-walkthrough-") as tmp:
        Walkthrough(Path(tmp)).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
