"""What one clause shows: its cues, read the first time the assembly asks for them (a question
is never tested for a refusal, a statement never for the slots it asks for), which saves most
of the reading time."""

from __future__ import annotations

import re
from functools import cached_property

from evals.engine.understanding.utterances import lexicon as lx
from evals.engine.understanding.utterances.model import Entity
from evals.engine.understanding.utterances.text import Clause

ID_KINDS = ("order_id", "invoice_id", "booking_id", "membership_id", "member_id", "item_id", "ticket_id", "task_id", "user_id")  # fmt: skip
_NOT_FOUND_BY_ENTITY = {"member_id": "account", "item_id": "item", "account_id": "account"}


class Domain:
    """A domain's own verbs: action name -> pattern, and the same verbs stated as done."""

    def __init__(self, actions: dict[str, str]) -> None:
        self.actions = tuple(
            (name, re.compile(src, re.IGNORECASE)) for name, src in actions.items()
        )
        self.done = tuple(
            re.compile(rf"(?:{_DONE_PREFIX})(?:{src})", re.IGNORECASE) for src in actions.values()
        )


# What turns a domain verb into a statement that it was done ("I've topped up", "已为您充值").
_DONE_PREFIX = (
    r"\b(?:i|we) (?:have |had |just |already |went ahead and |now )*|\b(?:has|have) been (?:\w+ly )?"
    r"|\b(?:was|were|is|are) (?:now |successfully |just )?|已(?:经)?(?:为您|帮您|给您|替您|成功)?.{0,6}?"
)


class Facts:
    def __init__(self, clause: Clause, entities: list[Entity], domain: Domain) -> None:
        self.clause = clause
        self.cue = clause.cue
        self.entities = entities
        self.question = clause.question
        self._domain = domain

    @cached_property
    def actions(self) -> list[str]:
        """Action names in the order they appear (domain verbs first)."""
        names = [name for name, rx in self._domain.actions if rx.search(self.cue)]
        return names + [name for name, _s, _e in lx.ACTIONS.finditer(self.cue)]

    @cached_property
    def handoff(self) -> bool:
        return lx.HANDOFF.search(self.cue) is not None

    @cached_property
    def request(self) -> bool:
        return lx.REQUEST.search(self.cue) is not None

    @cached_property
    def wh(self) -> bool:
        return lx.WH.search(self.cue) is not None

    @cached_property
    def go(self) -> int:
        """0: no go-ahead cue; 1: weak ("is that right?"); 2: strong ("shall I?")."""
        if lx.GO_AHEAD_STRONG.search(self.cue) or (
            lx.GO_AHEAD_WEAK.search(self.cue) and lx.OR_NOT.search(self.cue)
        ):
            return 2
        return 1 if lx.GO_AHEAD_WEAK.search(self.cue) else 0

    @cached_property
    def closing(self) -> bool:
        return lx.CLOSING.search(self.cue) is not None

    @cached_property
    def greeting(self) -> bool:
        return lx.GREETING.search(self.cue) is not None

    @cached_property
    def salutation(self) -> bool:
        return lx.SALUTATION.search(self.cue) is not None

    @cached_property
    def done(self) -> bool:
        cue = self.cue
        stated = lx.DONE.search(cue) is not None or any(rx.search(cue) for rx in self._domain.done)
        # "MS526684 cannot be frozen" names the action in its past form, and refuses it.
        return stated and lx.NOT_DONE.search(cue) is None and not self.refuse

    @cached_property
    def not_found(self) -> str | None:
        """What could not be found ("" when the clause does not say), or None."""
        cue_at = lx.NOT_FOUND.search(self.cue)
        if cue_at is None:
            return None
        for e in self.entities:
            if e.kind in ID_KINDS or e.kind in _NOT_FOUND_BY_ENTITY:
                return _NOT_FOUND_BY_ENTITY.get(e.kind, e.kind)
        found = [(start, name) for name, start, _e in lx.NOT_FOUND_WHAT.finditer(self.cue)]
        after = [name for pos, name in found if pos >= cue_at.end()]
        before = [name for pos, name in found if pos < cue_at.end()]
        return (after or before[::-1] or [""])[0]

    @cached_property
    def refuse(self) -> bool:
        cue = self.cue
        return (
            lx.REFUSE.search(cue) is not None
            and self.not_found is None
            and lx.NOT_REFUSE.search(cue) is None
        )

    @cached_property
    def fields(self) -> list[str]:
        return list(dict.fromkeys(name for name, _s, _e in lx.FIELDS.finditer(self.cue)))

    @cached_property
    def identity_done(self) -> bool:
        return lx.IDENTITY_DONE.search(self.cue) is not None

    @cached_property
    def id_cue(self) -> bool:
        return lx.IDENTITY_CUE.search(self.cue) is not None and not self.identity_done

    @cached_property
    def id_need(self) -> bool:
        return lx.IDENTITY_NEED.search(self.cue) is not None and not self.identity_done

    @cached_property
    def slots(self) -> list[tuple[int, int, str]]:
        return [(start, end, name) for name, start, end in lx.SLOTS.finditer(self.cue)]

    @cached_property
    def steps(self) -> list[str]:
        return [name for name, _s, _e in lx.STEP_VERBS.finditer(self.cue)]

    @cached_property
    def targets(self) -> list[str]:
        return list(dict.fromkeys(name for name, _s, _e in lx.STEP_TARGETS.finditer(self.cue)))

    @cached_property
    def directed(self) -> bool:
        return lx.STEP_DIRECTED.search(self.cue) is not None

    @cached_property
    def explain(self) -> bool:
        return lx.EXPLAIN.search(self.cue) is not None

    @cached_property
    def inform(self) -> bool:
        if lx.INFORM.search(self.cue):
            return True
        return lx.PROGRESSIVE.search(self.cue) is not None and bool(self.actions)

    @cached_property
    def reason(self) -> bool:
        return lx.REASON.search(self.cue) is not None

    @cached_property
    def recheck(self) -> bool:
        return lx.RECHECK.search(self.cue) is not None

    @cached_property
    def which(self) -> bool:
        return lx.WHICH.search(self.cue) is not None

    @cached_property
    def pick(self) -> bool:
        return lx.PICK.search(self.cue) is not None
