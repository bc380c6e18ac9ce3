"""The agent loop as a durable flow.

Step ids follow the agent convention ``<loop>#turn:<n>:tool:<j>``: every id minted inside the loop
belongs to the family ``agent`` (the part before ``#``), which is declared in ``steps``. So a new
version that changes how many turns or tools a ticket takes still passes a replay-check
(``runtime.resume_as(..., strategy="replay-check")``): its recorded ``agent#…`` frames are known.
"""

from __future__ import annotations

from loom_runtime import Context, flow

from . import policy
from .model import think
from .tools import classify, run_tool, send_reply


@flow("support-agent", version=1, steps=["classify", "agent", "reply"])
def support_agent(ctx: Context, ticket: dict) -> dict:
    topic = ctx.execute("classify", classify, ticket["text"])
    transcript = [
        {"role": "system", "content": policy.system_prompt(topic)},
        {"role": "user", "content": ticket["text"]},
    ]
    answer = None
    for turn in range(policy.MAX_TURNS):
        action = ctx.execute(f"agent#turn:{turn}:think", think, transcript)
        if action["type"] == "answer":
            answer = action["text"]
            break
        for j, call in enumerate(action["calls"]):
            if policy.allowed(call):
                result = ctx.execute(f"agent#turn:{turn}:tool:{j}", run_tool, call["tool"], call["args"])
            else:
                result = {"refused": f"tool {call['tool']} is not allowed here"}
            transcript.append({"role": "tool", "tool": call["tool"], "content": result})
    if answer is None:
        # out of turns: a human takes over and writes the answer
        handoff = ctx.suspend("human-handoff")
        answer = handoff["answer"]
    ctx.execute("reply", send_reply, ticket["id"], answer)
    return {"ticket": ticket["id"], "answer": answer, "turns": turn + 1}
