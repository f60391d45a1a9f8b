"""System notes and finding cards written before they had keys: give each row whose stored
English this recognises its key and parameters, so it reads in the reader's language. A row
is converted only when its stored text is exactly what the key's English (frozen below, as
it was written) gives for the parameters read back from it; any other row keeps its text,
shown as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.db import migrations
from django.utils import translation

Params = dict[str, Any]
Found = tuple[str, Params]

# The English each key was written with, frozen: a later change of the catalogue's English
# must not change what this migration recognises.
NOTE_ENGLISH: dict[str, Callable[[Params], str]] = {
    "merged": lambda p: (
        f"{p['actor']} merged ticket #{p['ticket']} into this ticket ({p['moved']} messages moved)."
    ),
    "tool_call": lambda p: f"Tool call: {p['name']}({p['arguments']})",
    "escalated": lambda p: (
        f"Escalated by the AI agent ({p['label']}). Reason: {p['reason']}\n"
        f"Summary: {p['summary']}\nCustomer wants: {p['requested']}"
    ),
    "refund.approved": lambda p: f"Refund #{p['refund']} of {p['amount']} approved by {p['actor']}.",
    "refund.rejected": lambda p: f"Refund #{p['refund']} of {p['amount']} rejected by {p['actor']}.",
    "refund.approved_because": lambda p: (
        f"Refund #{p['refund']} of {p['amount']} approved by {p['actor']}: {p['reason']}"
    ),
    "refund.rejected_because": lambda p: (
        f"Refund #{p['refund']} of {p['amount']} rejected by {p['actor']}: {p['reason']}"
    ),
    "finding": lambda p: "\n".join(
        [
            *(f"State diff: {d}" for d in p["diff"]),
            *(f"Note: {n}" for n in p["notes"]),
            f"Source: {p['source']}",
        ]
    ),
}
FINDING_ENGLISH: dict[str, Callable[[Params], str]] = {
    "reason": lambda p: f"Trial {p['trial']} failed: {p['failure']}, ended by {p['termination']}.",
    "summary": lambda p: (
        f"Run #{p['run']} ({p['suite']}, agent {p['agent']}); reward components: "
        f"{p['components'] or 'none'}."
    ),
    "requested_action": lambda p: "Review the failing trial and decide what to fix.",
}


def _category_codes() -> dict[str, str]:
    """Each escalation category's label, in every language a request could use -> its code
    (the card's label was worded in the language of the agent's API request)."""
    from tickets.models import EscalationCategory

    codes = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            codes.update({str(c.label): str(c.value) for c in EscalationCategory})
    return codes


def _refund(body: str) -> Found | None:
    match = re.fullmatch(
        r"Refund #(?P<refund>\d+) of (?P<amount>.+?) (?P<verb>approved|rejected) by "
        r"(?P<rest>.+)",
        body,
        re.DOTALL,
    )
    if match is None:
        return None
    params: Params = {"refund": int(match["refund"]), "amount": match["amount"]}
    rest, verb = match["rest"], match["verb"]
    if rest.endswith(".") and "\n" not in rest and ": " not in rest:
        return f"refund.{verb}", params | {"actor": rest[:-1]}
    actor, sep, reason = rest.partition(": ")
    if sep and reason:
        return f"refund.{verb}_because", params | {"actor": actor, "reason": reason}
    return None


def _finding(body: str) -> Found | None:
    lines = body.split("\n")
    if not lines or not lines[-1].startswith("Source: /"):
        return None
    diff, notes = [], []
    for line in lines[:-1]:
        if line.startswith("State diff: ") and not notes:
            diff.append(line.removeprefix("State diff: "))
        elif line.startswith("Note: "):
            notes.append(line.removeprefix("Note: "))
        else:
            return None
    return "finding", {"diff": diff, "notes": notes, "source": lines[-1].removeprefix("Source: ")}


def recognise_note(body: str, author_label: str, codes: dict[str, str]) -> Found | None:
    """(key, params) for a legacy system note, or None when it is not recognised. The
    params are what the key's phrase takes (the frozen English is checked by the caller)."""
    if author_label == "System":
        match = re.fullmatch(
            r"(?P<actor>.+) merged ticket #(?P<ticket>\d+) into this ticket "
            r"\((?P<moved>\d+) messages moved\)\.",
            body,
        )
        if match:
            return "merged", {
                "actor": match["actor"],
                "ticket": int(match["ticket"]),
                "moved": int(match["moved"]),
            }
        return _refund(body)
    if author_label == "Go-live suite":
        return _finding(body)
    match = re.fullmatch(r"Tool call: (?P<name>[^(\n]*)\((?P<arguments>.*)\)", body, re.DOTALL)
    if match:
        return "tool_call", {"name": match["name"], "arguments": match["arguments"]}
    match = re.fullmatch(
        r"Escalated by the AI agent \((?P<label>[^)]+)\)\. Reason: (?P<reason>.*)\n"
        r"Summary: (?P<summary>.*)\nCustomer wants: (?P<requested>.*)",
        body,
        re.DOTALL,
    )
    if match and author_label == "AI agent" and match["label"] in codes:
        params = dict(match.groupdict())
        return "escalated", params
    return None


def note_params(key: str, params: Params, body: str, codes: dict[str, str]) -> Params | None:
    """The stored params for a recognised note, when the frozen English gives back its body
    exactly; else None (the row keeps its body)."""
    if NOTE_ENGLISH[key](params) != body:
        return None
    if key == "escalated":
        label = params.pop("label")
        params["category"] = codes[label]
    return params


def recognise_finding_card(reason: str, summary: str, requested: str) -> Params | None:
    """The card values of a finding's escalation, when its three texts are exactly what the
    finding service wrote for them; else None."""
    why = re.fullmatch(
        r"Trial (?P<trial>\S+) failed: (?P<failure>.+), ended by (?P<termination>.+)\.", reason
    )
    what = re.fullmatch(
        r"Run #(?P<run>\d+) \((?P<suite>.+), agent (?P<agent>.+)\); reward components: "
        r"(?P<components>.*)\.",
        summary,
    )
    if why is None or what is None:
        return None
    params: Params = why.groupdict() | what.groupdict()
    params["run"] = int(params["run"])
    if params["components"] == "none":
        params["components"] = ""
    english = {name: words(params) for name, words in FINDING_ENGLISH.items()}
    texts = {"reason": reason, "summary": summary, "requested_action": requested}
    return params if english == texts else None


def _batches(rows: Iterable[Any], size: int = 500) -> Iterable[list[Any]]:
    batch: list[Any] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def notes_forward(apps: Any, schema_editor: Any) -> None:
    Message = apps.get_model("tickets", "Message")
    codes = _category_codes()
    legacy = Message.objects.filter(kind="system", body_key__isnull=True).only(
        "body", "author_label"
    )
    for batch in _batches(legacy.iterator(chunk_size=500)):
        changed = []
        for row in batch:
            found = recognise_note(row.body, row.author_label, codes)
            params = found and note_params(found[0], dict(found[1]), row.body, codes)
            if found is None or params is None:
                continue
            row.body_key, row.body_params = found[0], params
            changed.append(row)
        Message.objects.bulk_update(changed, ["body_key", "body_params"])


def cards_forward(apps: Any, schema_editor: Any) -> None:
    Escalation = apps.get_model("tickets", "Escalation")
    legacy = Escalation.objects.filter(category="agent_failure", card_key="").only(
        "reason", "summary", "requested_action"
    )
    for row in legacy.iterator(chunk_size=500):
        params = recognise_finding_card(row.reason, row.summary, row.requested_action)
        if params is not None:
            Escalation.objects.filter(pk=row.pk).update(card_key="finding", card_params=params)


class Migration(migrations.Migration):
    dependencies = [("tickets", "0014_system_note_and_card_keys")]

    operations = [
        migrations.RunPython(notes_forward, migrations.RunPython.noop, elidable=True),
        migrations.RunPython(cards_forward, migrations.RunPython.noop, elidable=True),
    ]
