"""Pass 1: choices. "Which size — S, M or L?" is one act spread over two clauses, and a
which-question often names its options in the clause before or after it."""

from __future__ import annotations

import re

from evals.engine.understanding.utterances import lexicon as lx
from evals.engine.understanding.utterances.assembly.base import AssemblyBase, Draft, tidy
from evals.engine.understanding.utterances.facts import ID_KINDS
from evals.engine.understanding.utterances.model import ActKind, Entity
from evals.engine.understanding.utterances.options import alternatives, list_items, option_key


class Choices(AssemblyBase):
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
        return tidy(slots)


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
