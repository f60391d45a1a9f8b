"""Pass 2: each clause not yet owned, in order: statements (hand-off, not found, refusal, done)
before questions, because "I can't find that order" must not read as a refusal nor "Is there
anything else?" as a yes/no check; a go-ahead takes its action from the summary before it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from evals.engine.understanding.utterances import lexicon as lx
from evals.engine.understanding.utterances.assembly.base import AssemblyBase, Draft, tidy
from evals.engine.understanding.utterances.model import ActKind

_OFFER = re.compile(
    r"\bi can\b.{0,60}\bif you\b|\bif you (?:would like|want|prefer)\b|如果您(?:需要|愿意|同意)"
)


def _resolve(names: Sequence[str]) -> list[str]:
    """Specific actions, in order, or else the one preferred generic action."""
    names = list(dict.fromkeys(names))
    specific = [n for n in names if n not in lx.GENERIC_ACTIONS]
    for n in list(specific):
        for gone in lx.SUPERSEDES.get(n, ()):
            if gone in specific:
                specific.remove(gone)
    if specific:
        return specific
    return [g for g in lx.GENERIC_ACTIONS if g in names][:1]


class Clauses(AssemblyBase):
    def clauses(self) -> None:
        last_not_found: Draft | None = None
        for i, f in enumerate(self.f):
            if self.owner[i] is not None:
                continue
            q = f.question
            if f.handoff:
                if f.go or _OFFER.search(f.clause.cue):
                    self.add(ActKind.CONFIRM, [i], actions=["handoff"])
                else:
                    self.add(ActKind.HANDOFF, [i])
                continue
            if not q and f.not_found is not None:
                last_not_found = self.add(
                    ActKind.NOT_FOUND, [i], slots=[f.not_found] if f.not_found else []
                )
                continue
            if not q and f.refuse:
                self.add(ActKind.REFUSE, [i], actions=_resolve(f.actions)[:1])
                continue
            if f.directed and self.step(i):
                continue
            if not q and f.done:
                self.done(i)
                continue
            if f.closing:
                self.add(ActKind.CLOSING, [i])
                continue
            if f.greeting:
                self.add(ActKind.GREETING, [i])
                continue
            if self.step(i):
                continue
            if not f.wh and f.go:
                self.confirm(i)
                continue
            if self.ask(i, last_not_found):
                continue
            if q and not f.wh and not f.request:
                self.add(ActKind.CHECK, [i])

    def done(self, i: int) -> None:
        used = [i]
        actions = _resolve(self.f[i].actions)
        if not actions:
            for j in (i + 1, i - 1):
                if (
                    0 <= j < self.n
                    and self.owner[j] is None
                    and self.f[j].actions
                    and not self.f[j].question
                ):
                    actions = _resolve(self.f[j].actions)
                    used.append(j)
                    break
        self.add(ActKind.DONE, used, actions=actions)

    def step(self, i: int) -> bool:
        f = self.f[i]
        previous = self.owner[i - 1] if i > 0 else None
        continuing = (
            previous is not None
            and previous.kind is ActKind.USER_STEP
            and self.f[i - 1].clause.sentence == f.clause.sentence
        )
        if not (continuing or f.directed) or not f.steps:
            return False
        if not continuing and not f.targets:
            return False
        if continuing and previous is not None:
            previous.clauses.append(i)
            self.owner[i] = previous
        else:
            self.add(ActKind.USER_STEP, [i])
        return True

    def confirm(self, i: int) -> None:
        f = self.f[i]
        used = [i]
        actions = list(f.actions)
        if not _resolve(actions) or all(a in lx.GENERIC_ACTIONS for a in _resolve(actions)):
            j = i - 1
            while j >= 0 and self.owner[j] is None:
                actions = self.f[j].actions + actions
                used.append(j)
                j -= 1
            previous = self.owner[j] if j >= 0 else None
            if not _resolve(actions) and previous is not None and previous.kind is ActKind.CONFIRM:
                # "Please confirm: cancel X. Reply yes to continue." — one proposal, asked twice.
                previous.clauses += used
                for k in used:
                    self.owner[k] = previous
                return
            if not _resolve(actions) and i + 1 < self.n and self.owner[i + 1] is None:
                actions = self.f[i + 1].actions
                if actions:
                    used.append(i + 1)
        resolved = _resolve(actions)
        if resolved:
            self.add(ActKind.CONFIRM, sorted(used), actions=resolved)
        elif f.go == 2:
            self.add(ActKind.CONFIRM, sorted(used))
        else:
            self.add(ActKind.CHECK, [i])

    def identity_fields_of(self, i: int) -> list[str]:
        """The identity fields clause i names; a ZIP alone is an address detail unless the
        message is about identity."""
        fields = self.f[i].fields
        if fields and not set(fields) & lx.STRONG_FIELDS:
            return fields if any(x.id_cue or x.id_need for x in self.f) else []
        return fields

    def ask(self, i: int, last_not_found: Draft | None) -> bool:
        f = self.f[i]
        interactive = self.interactive(i)
        if not interactive and not f.id_need:
            return False
        fields = self.identity_fields_of(i)
        if f.id_need and not fields and lx.EXPLAIN.match(f.cue):
            return False  # "…是因为必须先确认身份": the reason for asking, not the asking
        if not interactive:
            self.add(ActKind.VERIFY, [i], slots=fields)  # "I need to verify your identity first."
            return True
        cue = f.cue
        yes_no = not f.request and not f.wh and bool(lx.YES_NO.search(cue))
        stated = not f.clause.zh and not f.request and bool(lx.CHECK_FORM.search(cue))
        if fields or f.id_need:
            if (yes_no or stated) and not f.id_need:
                self.add(ActKind.CHECK, [i])  # "Is 94107 the ZIP on your account?"
                return True
            self.add(ActKind.VERIFY, [i], slots=fields)
        slots = tidy([name for _s, _e, name in f.slots])
        if f.recheck and last_not_found is not None and last_not_found.slots:
            what = last_not_found.slots[0]
            if what == "account" and not fields:
                # "The member number and birth date don't match. Could you check them again?"
                named = [fl for j in last_not_found.clauses for fl in self.f[j].fields]
                self.add(ActKind.VERIFY, [i], slots=list(dict.fromkeys(named)))
                return True
            if what != "account":
                slots.insert(0, what)
        if slots:
            kinds = {e.kind for e in f.entities}
            if stated or (yes_no and set(slots) & kinds):
                self.add(ActKind.CHECK, [i])
            else:
                self.add(ActKind.ASK, [i], slots=list(dict.fromkeys(slots)))
            return True
        return bool(fields or f.id_need)
