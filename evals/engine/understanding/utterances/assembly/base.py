"""What every pass of the assembly shares: the draft acts, the clause that owns each clause,
and the clauses that answer an introducing request."""

from __future__ import annotations

from dataclasses import dataclass, field

from evals.engine.understanding.utterances import lexicon as lx
from evals.engine.understanding.utterances.facts import Facts
from evals.engine.understanding.utterances.model import ActKind


@dataclass(slots=True)
class Draft:
    kind: ActKind
    at: int
    clauses: list[int]
    actions: list[str] = field(default_factory=list)
    slots: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    reason: str = ""


class AssemblyBase:
    def __init__(self, facts: list[Facts]) -> None:
        self.f = facts
        self.n = len(facts)
        self.owner: list[Draft | None] = [None] * self.n
        self.drafts: list[Draft] = []
        self.request_from: set[int] = self._inherited_requests()

    def add(self, kind: ActKind, clauses: list[int], **kw: object) -> Draft:
        draft = Draft(kind, min(clauses), clauses, **kw)  # type: ignore[arg-type]
        self.drafts.append(draft)
        for i in clauses:
            if self.owner[i] is None:
                self.owner[i] = draft
        return draft

    def _inherited_requests(self) -> set[int]:
        """Clauses that answer an introducing request ("I need a couple of details:" and the
        bullets under it, "需要两样信息：" and the rest of the sentence)."""
        out: set[int] = set()
        for i, f in enumerate(self.f):
            if not (f.clause.intro and (f.request or f.question)):
                continue
            for j in range(i + 1, self.n):
                c = self.f[j].clause
                if c.sentence == f.clause.sentence or c.bullet:
                    out.add(j)
                else:
                    break
        return out

    def interactive(self, i: int) -> bool:
        f = self.f[i]
        if f.question or f.request or i in self.request_from:
            return True
        before = self.f[i - 1] if i > 0 else None
        return (
            before is not None
            and before.clause.sentence == f.clause.sentence
            and (before.request or before.question)
            and bool(lx.CONTINUES.match(f.clause.cue))
        )


def tidy(slots: list[str]) -> list[str]:
    """Slots in order without repeats; where the refund goes is not how the customer pays."""
    out = list(dict.fromkeys(slots))
    if "refund_method" in out and "payment_method" in out:
        out.remove("payment_method")
    return out


def step_action(verbs: list[str], targets: list[str]) -> str:
    """The first step, where switching something off and on again counts as one step: a
    restart for a phone or a router, a toggle for anything else."""
    verbs = list(verbs)
    if "turn_off" in verbs and "turn_on" in verbs:
        first = min(verbs.index("turn_off"), verbs.index("turn_on"))
        verbs[first] = "toggle"
    if verbs and verbs[0] == "toggle" and {"phone", "router"} & set(targets):
        return "restart"
    return verbs[0] if verbs else ""
