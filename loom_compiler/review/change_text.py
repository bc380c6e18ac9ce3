"""What each renderer says about one changed member and about the steps a body could skip.

Format-neutral pieces shared by the text, markdown and github renderers (``review.render``): a
member's change as either one inline pair (``RATE = 90`` → ``RATE = 92``, when both sides are one
line) or diff lines (``-``/``+``/`` ``), capped so that a new 200-line helper does not bury the
rest of the review; and the sentence for the static "could skip" estimate. Rejected: each renderer
building these itself (three spellings of the same judgement would drift apart).
"""

from __future__ import annotations

from dataclasses import dataclass

from loom_runtime.definition import RESERVED_GATE

from ..canonical import pretty
from .code import code_diff, inline_change
from .diff import FlowChange, MemberChange

__all__ = ["MemberDetail", "member_detail", "skip_sentence", "MAX_LINES"]

#: diff lines shown per member before "… N more lines"
MAX_LINES = 16


@dataclass(frozen=True, slots=True)
class MemberDetail:
    """``inline``: (before, after) of a one-line change; else ``note`` and ``lines`` (diff lines)."""

    inline: tuple[str, str] | None = None
    note: str | None = None
    lines: tuple[str, ...] = ()
    hidden: int = 0  # diff lines left out past MAX_LINES


def _capped(lines: list[str], note: str | None = None) -> MemberDetail:
    return MemberDetail(None, note, tuple(lines[:MAX_LINES]), max(0, len(lines) - MAX_LINES))


def member_detail(m: MemberChange) -> MemberDetail | None:
    """What to show under a member change; ``None`` when neither side's code is known."""
    c = m.code
    if c.rebound:
        moved = "; ".join(f"`{name}` now resolves to `{new or 'nothing'}` (was `{old or 'nothing'}`)" for name, old, new in c.rebound)
        return MemberDetail(note=f"same code; {moved}")
    if c.canonical:
        before, after = pretty(c.before or "", 80), pretty(c.after or "", 80)
        return _capped(code_diff(before, after), note="the code reads the same; its canonical form changed:")
    if c.before is not None and c.after is not None:
        pair = inline_change(c.before, c.after)
        if pair is not None:
            return MemberDetail(inline=pair)
        return _capped(code_diff(c.before, c.after))
    if c.after is not None:
        note = "the base records no code for it (a manifest):" if m.change == "edited" else None
        return _capped(["+" + line for line in c.after.splitlines()], note=note)
    if c.before is not None:
        return _capped(["-" + line for line in c.before.splitlines()])
    return None


def skip_sentence(f: FlowChange, code: str = "`{}`") -> str | None:
    """The "could skip" estimate as one sentence (``code`` formats a step id); ``None``: not estimated."""
    if f.may_skip is None or not f.code_changed:
        return None
    label = "Recorded steps the new body could skip (static estimate from the step calls in the code)"
    if not f.may_skip:
        sentence = f"{label}: none."
    else:
        ids = ", ".join(code.format(s) for s in f.may_skip)
        sentence = (
            f"{label}: {ids}. An execution that already ran them and resumes on the new code is refused as "
            f"diverged and parked on {code.format(RESERVED_GATE)}, compatible_with or not; keep the old version "
            "for those executions (history) or migrate them."
        )
    if f.head_computed_steps:
        sentence += f" The new code also asks for {f.head_computed_steps} step id(s) it computes, which the estimate cannot read."
    return sentence
