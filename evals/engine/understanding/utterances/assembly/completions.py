"""Pass 3: the message as a whole. Identity fields spread over bullets, the action of "Done:"
in the next clause, a refusal's reason in the sentence after it, and statuses (INFORM) only
when no stronger act already carries the facts; then the drafts merged."""

from __future__ import annotations

from evals.engine.understanding.utterances import lexicon as lx
from evals.engine.understanding.utterances.assembly.base import AssemblyBase, Draft
from evals.engine.understanding.utterances.model import ActKind

_STATED = (ActKind.DONE, ActKind.REFUSE, ActKind.NOT_FOUND, ActKind.CONFIRM, ActKind.HANDOFF)
_SINGLE = (
    ActKind.GREETING, ActKind.CLOSING, ActKind.CHECK, ActKind.EXPLAIN, ActKind.INFORM, ActKind.HANDOFF,
)  # fmt: skip


class Completions(AssemblyBase):
    def identity_fields(self) -> None:
        verify = next((d for d in self.drafts if d.kind is ActKind.VERIFY), None)
        if verify is None:
            return
        for i, f in enumerate(self.f):
            owner = self.owner[i]
            if f.fields and (owner is None or owner.kind in (ActKind.VERIFY, ActKind.EXPLAIN)):
                verify.slots += [fl for fl in f.fields if fl not in verify.slots]
                if owner is None:
                    self.owner[i] = verify

    def _done_as_reason(self, j: int) -> bool:
        """Whether clause `j` was read as a "done" on its own while it gives a reason."""
        d = self.owner[j]
        return (
            d is not None
            and d.kind is ActKind.DONE
            and d.at == j
            and bool(self.f[j].reason)
            and not self.f[j].question
        )

    def reasons(self) -> None:
        for d in self.drafts:
            if d.kind is not ActKind.REFUSE:
                continue
            i = d.at
            if self.f[i].reason:
                d.reason = self.f[i].clause.text
                continue
            sentence = self.f[i].clause.sentence
            for j in (i - 1, i + 1, i + 2):
                if 0 <= j < self.n and j == i + 1 and self._done_as_reason(j):
                    # "I can't cancel it: the order has already been processed" states why,
                    # not that something was done: the status is the refusal's reason.
                    gone = self.owner[j]
                    self.drafts = [x for x in self.drafts if x is not gone]
                    self.owner = [None if o is gone else o for o in self.owner]
                if not 0 <= j < self.n or self.owner[j] is not None or self.f[j].question:
                    continue
                if j == i - 1 and self.f[j].clause.sentence != sentence:
                    continue
                if self.f[j].reason:
                    d.reason = self.f[j].clause.text
                    d.clauses.append(j)
                    self.owner[j] = d
                    break

    def explanations(self) -> None:
        for i, f in enumerate(self.f):
            owner = self.owner[i]
            if (owner is None or owner.kind not in (*_STATED, ActKind.CLOSING)) and f.explain:
                self.add(ActKind.EXPLAIN, [i])
                return

    def statuses(self) -> None:
        if any(d.kind in _STATED for d in self.drafts):
            return
        for i, f in enumerate(self.f):
            if self.owner[i] is None and f.inform and not f.question and not f.request:
                self.add(ActKind.INFORM, [i])

    def merged(self) -> list[Draft]:
        out: list[Draft] = []
        by_key: dict[tuple[ActKind, str], Draft] = {}
        key: tuple[ActKind, str]
        specific = {
            kind: any(
                a not in lx.GENERIC_ACTIONS
                for d in self.drafts
                if d.kind is kind
                for a in d.actions
            )
            for kind in (ActKind.DONE, ActKind.CONFIRM)
        }
        for d in self.drafts:
            if d.kind in (ActKind.DONE, ActKind.CONFIRM, ActKind.REFUSE):
                actions = d.actions or [""]
                if specific.get(d.kind):
                    actions = [a for a in actions if a not in lx.GENERIC_ACTIONS] or []
                for action in actions:
                    key = (d.kind, action)
                    if key in by_key:
                        by_key[key].clauses += d.clauses
                        by_key[key].reason = by_key[key].reason or d.reason
                        continue
                    copy = Draft(
                        d.kind, d.at, list(d.clauses), [action] if action else [], reason=d.reason
                    )
                    by_key[key] = copy
                    out.append(copy)
                continue
            if d.kind in (
                ActKind.ASK,
                ActKind.VERIFY,
                ActKind.USER_STEP,
                ActKind.NOT_FOUND,
                *_SINGLE,
            ):
                key = (d.kind, d.slots[0] if d.kind is ActKind.NOT_FOUND and d.slots else "")
                if key in by_key:
                    target = by_key[key]
                    target.clauses += d.clauses
                    target.slots += [s for s in d.slots if s not in target.slots]
                    continue
                by_key[key] = d
            out.append(d)
        return out
