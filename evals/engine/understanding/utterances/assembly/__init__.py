"""From clause facts to the acts of the whole message.

Order of the passes, and why:
1. choices first — "which size — S, M or L?" is one act spread over two clauses, and a
   which-question often names its options in the clause before or after it;
2. then each remaining clause, in order: statements (hand-off, not found, refusal, done) before
   questions, because "I can't find that order" must not read as a refusal nor "Is there
   anything else?" as a yes/no check; a go-ahead takes its action from the summary before it;
3. then message-level completions: identity fields spread over bullets, the action of "Done:"
   in the next clause, a refusal's reason in the sentence after it, and statuses (INFORM) only
   when no stronger act already carries the facts."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from evals.engine.understanding.utterances import lexicon as lx
from evals.engine.understanding.utterances.facts import ID_KINDS, Facts
from evals.engine.understanding.utterances.model import ActKind, Entity
from evals.engine.understanding.utterances.options import alternatives, list_items, option_key

_OFFER = re.compile(
    r"\bi can\b.{0,60}\bif you\b|\bif you (?:would like|want|prefer)\b|如果您(?:需要|愿意|同意)"
)
_STATED = (ActKind.DONE, ActKind.REFUSE, ActKind.NOT_FOUND, ActKind.CONFIRM, ActKind.HANDOFF)
_SINGLE = (
    ActKind.GREETING, ActKind.CLOSING, ActKind.CHECK, ActKind.EXPLAIN, ActKind.INFORM, ActKind.HANDOFF,
)  # fmt: skip


@dataclass(slots=True)
class Draft:
    kind: ActKind
    at: int
    clauses: list[int]
    actions: list[str] = field(default_factory=list)
    slots: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    reason: str = ""


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


class Assembly:
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

    # -- pass 1: choices -------------------------------------------------------------------

    def choices(self) -> None:
        sentences: dict[int, list[int]] = {}
        for i, f in enumerate(self.f):
            sentences.setdefault(f.clause.sentence, []).append(i)
        for idxs in sentences.values():
            if not any(self.f[i].question or self.f[i].pick or self._asks_which(i) for i in idxs):
                continue
            for k, i in enumerate(idxs):
                f = self.f[i]
                if self.owner[i] is not None:
                    continue
                text, used = f.clause.cue, [i]
                starts_with_or = re.match(r"(?:or|还是|或者|或)\b", text) or re.match(
                    r"还是|或者|或", text
                )
                if starts_with_or and k > 0:
                    text, used = self.f[idxs[k - 1]].clause.cue + "，" + text, [idxs[k - 1], i]
                opts = alternatives(text)
                if not opts or not self._offers(i, idxs):
                    continue
                lead = [
                    j
                    for j in idxs[: idxs.index(used[0])]
                    if self.owner[j] is None and self._leads(j)
                ]
                tail = [
                    j
                    for j in idxs[k + 1 :]
                    if self.owner[j] is None and self.f[j].question and not self.f[j].slots
                ]
                members = sorted({*lead, *used, *tail})
                self.add(
                    ActKind.CHOICE, members, slots=self._choice_slots(members, opts), options=opts
                )
                if any(self.f[j].greeting for j in members):
                    self.drafts.append(Draft(ActKind.GREETING, members[0], [members[0]]))
                break

    def _offers(self, i: int, sentence: list[int]) -> bool:
        """Alternatives in clause i are a choice unless the sentence closes ("anything else, or
        are we done?"), the clause states something, or it asks for identity ("your email, or
        your name and ZIP")."""
        f = self.f[i]
        if any(self.f[j].closing for j in sentence) or f.handoff:
            return False
        if not f.question and (f.refuse or f.not_found is not None or f.done):
            return False
        if any(fl in lx.STRONG_FIELDS for fl in f.fields):
            return False
        return not (f.fields and any(x.id_need for x in self.f))

    def _asks_which(self, i: int) -> bool:
        """ "I need to know whether you'd like it on your card or as credit" asks like a question."""
        f = self.f[i]
        return f.request and bool(
            re.search(r"\b(?:whether|which|prefer|rather)\b|还是", f.clause.cue)
        )

    def _leads(self, j: int) -> bool:
        f = self.f[j]
        return (f.clause.intro or f.pick) and not (f.refuse or f.done or f.not_found is not None)

    def which_lists(self) -> None:
        for i, f in enumerate(self.f):
            if (
                self.owner[i] is not None
                or not f.which
                or not (f.question or f.request or f.clause.intro)
                or f.closing
            ):
                continue
            for j, opts in self._adjacent_lists(i):
                members = sorted({i, *j})
                self.add(
                    ActKind.CHOICE, members, slots=self._choice_slots(members, opts), options=opts
                )
                break

    def _adjacent_lists(self, i: int) -> list[tuple[list[int], list[str]]]:
        found: list[tuple[list[int], list[str]]] = []
        bullets = []
        for j in range(i + 1, self.n):
            c = self.f[j].clause
            if not c.bullet or self.f[j].question or len(c.text.split()) > 4 or len(c.text) > 24:
                break
            bullets.append(j)
        if len(bullets) >= 2:
            found.append((bullets, [option_key(self.f[j].clause.text) for j in bullets]))
        after = i + 1
        if (
            after + 1 < self.n
            and self.f[after].clause.intro
            and len(self.f[after].clause.text.split()) <= 3
        ):
            after += 1  # "Which option would you like? Available: red, green."
        for j in (i - 1, after):
            if not 0 <= j < self.n or self.owner[j] is not None or self.f[j].question:
                continue
            ids = [e for e in self.f[j].entities if e.kind in ID_KINDS]
            kinds = {e.kind for e in ids}
            if len(ids) >= 2 and len(kinds) == 1:
                found.append(([j], [e.value.lower() for e in ids]))
                continue
            offered = alternatives(self.f[j].clause.cue)
            if offered:
                found.append(([j], offered))
                continue
            items = list_items(self.f[j].clause.cue, self.f[j].clause.zh)
            introduced = self.f[i].clause.intro or self.f[j - 1].clause.intro
            if items and (len(items) >= 3 or introduced):
                found.append((list(range(i + 1, j + 1)) if j > i else [j], items))
        return found

    def _choice_slots(self, members: list[int], options: list[str]) -> list[str]:
        slots: list[str] = []
        for j in members:
            cue = self.f[j].clause.cue
            for start, end, name in self.f[j].slots:
                if name == "option" and any(cue[start:end] in o for o in options):
                    continue  # "a different colour, or a refund?" does not ask which colour
                slots.append(name)
        if not slots:
            slots += _inferred_slot(options, [e for j in members for e in self.f[j].entities])
        return _tidy(slots)

    # -- pass 2: clause by clause ----------------------------------------------------------

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
        slots = _tidy([name for _s, _e, name in f.slots])
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

    # -- pass 3: the message as a whole ------------------------------------------------------

    def run(self) -> list[Draft]:
        self.choices()
        self.which_lists()
        self.clauses()
        self.identity_fields()
        self.reasons()
        self.explanations()
        self.statuses()
        drafts = self.merged()
        if not drafts:
            kind = ActKind.GREETING if any(f.salutation for f in self.f) else ActKind.UNCLEAR
            drafts = [Draft(kind, 0, list(range(self.n)))]
        return sorted(drafts, key=lambda d: d.at)

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


def _tidy(slots: list[str]) -> list[str]:
    """Slots in order without repeats; where the refund goes is not how the customer pays."""
    out = list(dict.fromkeys(slots))
    if "refund_method" in out and "payment_method" in out:
        out.remove("payment_method")
    return out


def _inferred_slot(options: list[str], entities: list[Entity]) -> list[str]:
    ids = {e.kind for e in entities if e.kind in ID_KINDS and e.value.lower() in options}
    if len(ids) == 1:
        return [ids.pop()]
    if all(lx.OPTION_WORD.match(o) or lx.OPTION_WORD.match(o.split()[0]) for o in options):
        return ["option"]
    for kind in ("item", "plan"):
        values = {e.text.lower() for e in entities if e.kind == kind} | {
            e.value.lower() for e in entities if e.kind == kind
        }
        if values and all(any(v in o for v in values) for o in options):
            return [kind]
    if any(
        w in o for o in options for w in ("morning", "afternoon", "evening", "上午", "下午", "晚上")
    ):
        return ["time"]
    return []


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
