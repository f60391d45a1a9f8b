"""The reader: normalise, find the entities, split into clauses, read each clause's facts,
assemble the acts (see the assembly package for the order of the passes and why)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evals.engine.understanding.utterances.assembly import Assembly, Draft, step_action
from evals.engine.understanding.utterances.entities import EntityExtractor
from evals.engine.understanding.utterances.facts import Domain, Facts
from evals.engine.understanding.utterances.model import Act, ActKind, Entity, EntityPattern, Reading
from evals.engine.understanding.utterances.text import Clause, normalize, split

CACHE_SIZE = 4096


class UtteranceReader:
    """Reads agent messages. `entities` adds a domain's own entity patterns (they win over the
    core ones where they overlap); `actions` adds domain verbs: action name -> regex source
    (matched case-insensitively on the lower-cased clause, before the core verbs; let it match
    the past form too — "top(?:ped)? up" — so "I've topped up your card" reads as done)."""

    def __init__(
        self, *, entities: Sequence[EntityPattern] = (), actions: Mapping[str, str] | None = None
    ) -> None:
        self._extractor = EntityExtractor(entities)
        self._domain = Domain(dict(actions or {}))
        self._cache: dict[str, Reading] = {}

    def read(self, text: str) -> Reading:
        """The reading of one agent message. Readings are immutable, and an agent says the same
        things again and again across trials: the last `CACHE_SIZE` texts are remembered."""
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        reading = self._read(text)
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[text] = reading
        return reading

    def _read(self, text: str) -> Reading:
        norm = normalize(text)
        entities = self._extractor.find(norm)
        clauses = split(norm)
        facts = [
            Facts(c, [e for e in entities if c.start <= e.start < c.end], self._domain)
            for c in clauses
        ]
        drafts = Assembly(facts).run()
        acts = tuple(_act(d, facts, clauses, entities) for d in drafts)
        return Reading(text=text, acts=acts, entities=tuple(entities))


def _act(d: Draft, facts: list[Facts], clauses: list[Clause], entities: list[Entity]) -> Act:
    members = sorted(set(d.clauses)) if d.kind is not ActKind.UNCLEAR else list(range(len(clauses)))
    spans = [(clauses[i].start, clauses[i].end) for i in members]
    mine = tuple(e for e in entities if any(s <= e.start < t for s, t in spans))
    action = d.actions[0] if d.actions else ""
    slots = tuple(dict.fromkeys(d.slots))
    if d.kind is ActKind.USER_STEP:
        verbs = [v for i in members for v in facts[i].steps]
        targets = [t for i in members for t in facts[i].targets]
        action, slots = step_action(verbs, targets), tuple(dict.fromkeys(targets))
    text = " ".join(clauses[i].text for i in members)
    return Act(d.kind, action, slots, tuple(d.options), mine, d.reason, text)
