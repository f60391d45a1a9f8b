"""How `tau2_mock` is spoken offline: the domain's entities for the `UtteranceReader`, the few
cues the generic reader has no slot for, and the reading of τ²'s user-scenario text into what
the scripted customer wants (`customer_brief`).

The brief is read from the scenario's words alone — never from the task's gold actions or
assertions — so the customer can name only what τ²'s customer was told: a task whose id its
scenario never gives is a task the customer cannot name.
"""

from __future__ import annotations

import re
from typing import Any

from evals.engine.understanding.utterances import EntityPattern, UtteranceReader

TASK_ID = re.compile(r"(?<![A-Za-z0-9])(task_\d+)(?!\d)")
USER_ID = re.compile(r"(?<![A-Za-z0-9])(user_\d+)(?!\d)")
NOTIFICATION_ID = re.compile(r"(?<![A-Za-z0-9])(notif_\d+)(?!\d)")

ENTITIES = (
    EntityPattern("task_id", TASK_ID),
    EntityPattern("user_id", USER_ID),
    EntityPattern("notification_id", NOTIFICATION_ID),
)
READER = UtteranceReader(entities=ENTITIES)

# What the generic reader does not read (it has no task-id slot, and it misses some refusals
# and reads "I will mark task_2 as completed" as done): the customer adds these cues.
ASKS_TASK = re.compile(
    r"\b(?:which|what) task\b|\btask ?(?:id|number)\b|\bid of (?:the|your|that|this) task\b"
    r"|哪(?:一)?个任务|任务(?:编号|号|id)",
    re.IGNORECASE,
)
ASKING = re.compile(r"[?？]|\b(?:please|kindly) (?:give|tell|provide|share|send)\b|请(?:提供|告诉)")
CANNOT = re.compile(
    r"\b(?:can ?not|can't|unable to|not able to|won't be able)\b|无法|不能|没办法", re.IGNORECASE
)
FUTURE = re.compile(r"\b(?:will|going to|about to|shall|would)\b|'ll\b|将|会|要", re.IGNORECASE)
PRAISE = re.compile(
    r"\b(?:great|good|fantastic|excellent|amazing|wonderful) (?:job|work)\b|\bwell done\b"
    r"|\bdoing (?:great|well|brilliantly|an? (?:great|excellent|fantastic))\b|\bimpressive\b"
    r"|做得(?:很|非常|真)?好|真棒|很棒|了不起",
    re.IGNORECASE,
)
PENDING = re.compile(r"\bpending\b|\bnot (?:yet )?(?:done|complete)|待处理|未完成", re.IGNORECASE)
COMPLETED = re.compile(r"\bcomplet\w*|\bdone\b|\bfinished\b|已完成|完成", re.IGNORECASE)
_CLAUSE = re.compile(r"(?<=[.!?。！？])\s*")


def asks_task_id(text: str) -> bool:
    """Whether a sentence of `text` asks which task (by id or number), not one that says it
    cannot act without one."""
    return any(
        ASKS_TASK.search(s) and ASKING.search(s) and not CANNOT.search(s)
        for s in _CLAUSE.split(text)
    )


QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"|「([^」]+)」|“([^”]+)”")

# -- τ²'s user-scenario text -> what the customer wants ----------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_CREATE = re.compile(r"\btask (?:called|titled|named) '([^']+)' for (user_\d+)", re.IGNORECASE)
_STATUS = re.compile(
    r"\b(?:mark(?:ed)?|update[ds]?|set)\b.*?\b(completed|pending)\b", re.IGNORECASE
)
_COMPLIMENT = re.compile(r"\bcompliment\b", re.IGNORECASE)
_WANTS = re.compile(r"^(?:now,? )?you want to\b", re.IGNORECASE)
_META = re.compile(r"^(?:continue|you are|your goal|first|after|tell the agent)\b", re.IGNORECASE)
_DISMISS = re.compile(r"\bdismiss_notification\b[^.]*?(notif_\d+)")
USER_READS = ("check_notifications",)


def first_person(sentence: str) -> str:
    """A scenario sentence, addressed to the customer, as the customer would say it."""
    out = re.sub(r"\byou want\b", "I want", sentence, flags=re.IGNORECASE)
    out = re.sub(r"\byou have\b", "I have", out, flags=re.IGNORECASE)
    out = re.sub(r"\byour\b", "my", out)
    out = re.sub(r"\bYour\b", "My", out)
    out = re.sub(r"^Now,? ", "", out)
    return out[:1].upper() + out[1:]


def customer_brief(text: str) -> dict[str, Any]:
    """What τ²'s user-scenario `text` tells the customer to ask for, in order (`requests`),
    which of its own tools to use first (`before`) and which writes to make on its side once
    the agent is done (`after`). A request names only ids the text names: an update whose task
    the text never identifies has `task_id` "" and `about`, what the text says of the task."""
    sentences = [s.strip() for s in _SENTENCE.split(text) if s.strip()]
    ids = list(dict.fromkeys(TASK_ID.findall(text)))
    requests: list[dict[str, Any]] = []
    for s in sentences:
        request: dict[str, Any]
        if m := _CREATE.search(s):
            request = {"kind": "create", "title": m.group(1), "user_id": m.group(2)}
        elif _COMPLIMENT.search(s):
            request = {"kind": "compliment"}
        elif m := _STATUS.search(s):
            named = TASK_ID.findall(s)
            task_id = named[0] if named else (ids[0] if len(ids) == 1 else "")
            request = {"kind": "update", "task_id": task_id, "status": m.group(1).lower()}
            if not task_id:
                request["about"] = " ".join(
                    first_person(o)
                    for o in sentences
                    if o != s and "task" in o.lower() and not _META.match(o)
                )
        elif _WANTS.match(s):
            request = {"kind": "other", "text": first_person(s)}
        else:
            continue
        if request not in requests:
            requests.append(request)
    return {
        "requests": requests,
        "before": [[name, {}] for name in USER_READS if name in text],
        "after": [
            ["dismiss_notification", {"notification_id": m.group(1)}]
            for m in _DISMISS.finditer(text)
        ],
    }
