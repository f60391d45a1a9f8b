"""Skip a regex that cannot match: the reader runs ~40 patterns, some of them alternations of
hundreds of phrases, over every clause, and Python's `re` tries every alternative at every
position. Most of them cannot match most clauses, and a cheap test says so.

`Gate(pattern)` reads off the parsed pattern a set of strings one of which occurs in the text
whenever the pattern matches (for `\\bcancel\\w*|取消` that is {"cancel", "取消"}; for a digit,
the ten digits; for a CJK range, a marker checked with one search). When none occurs, the
pattern is not run. That is a necessary condition read from the pattern itself, so skipping
never changes a result; a pattern with no such set (a bare `.*`, a negated class) always runs.
`GatedNames` does the same per named group of a `_named` alternation, and compiles (once, then
cached) the alternation of only the groups that could match, in their original order, so
the leftmost-first choice between overlapping groups is unchanged."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from re import _constants as sre  # type: ignore[attr-defined, unused-ignore]
from re import _parser  # type: ignore[attr-defined, unused-ignore]
from typing import Any

CJK = "\x00cjk"  # stands for "some CJK character"
_CJK = re.compile(r"[\u4e00-\u9fff]")
_DIGITS = frozenset("0123456789")


def required(source: str, flags: int = 0) -> frozenset[str] | None:
    """Strings one of which occurs in every text that `source` matches, or None. When any part
    of the pattern ignores case, they are case-folded, to be looked for in the case-folded
    text (folding both sides only ever finds more)."""
    found = _sequence(list(_parser.parse(source, flags)))
    if found is None or not found:
        return None
    if _ignores_case(source, flags):
        return frozenset(s if s == CJK else s.casefold() for s in found)
    return found


def _ignores_case(source: str, flags: int) -> bool:
    return (
        bool(flags & re.IGNORECASE) or re.search(r"\(\?[a-zA-Z]*i[a-zA-Z]*[:)]", source) is not None
    )


def _rank(needles: frozenset[str]) -> tuple[int, bool, int]:
    """Longer shortest needle first; then no single letter (a digit is rarer than "a"); "any
    CJK character" is the least selective of all."""
    shortest = 0 if CJK in needles else min(map(len, needles))
    letter = any(len(n) == 1 and n.isascii() and n.isalpha() for n in needles)
    return shortest, not letter, -len(needles)


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The more selective of two requirements."""
    if a is None:
        return b
    if b is None:
        return a
    return a if _rank(a) >= _rank(b) else b


def _sequence(items: Sequence[tuple[Any, Any]]) -> frozenset[str] | None:
    best: frozenset[str] | None = None
    run: list[str] = []
    for op, av in items:
        if op is sre.LITERAL:
            run.append(chr(av))
            continue
        if run:
            best = _better(best, frozenset({"".join(run)}))
            run = []
        best = _better(best, _element(op, av))
    if run:
        best = _better(best, frozenset({"".join(run)}))
    return best


def _element(op: Any, av: Any) -> frozenset[str] | None:
    if op is sre.SUBPATTERN:
        return _sequence(list(av[3]))
    if op is sre.BRANCH:
        alternatives = [_sequence(list(alt)) for alt in av[1]]
        if any(a is None for a in alternatives):
            return None
        return frozenset().union(*(a for a in alternatives if a is not None))
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _high, sub = av
        return _sequence(list(sub)) if low >= 1 else None
    if op is sre.IN:
        return _char_class(av)
    return None


def _char_class(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    out: set[str] = set()
    for op, av in items:
        if op is sre.LITERAL:
            out.add(chr(av))
        elif (op is sre.CATEGORY and av is sre.CATEGORY_DIGIT) or (
            op is sre.RANGE and av == (ord("0"), ord("9"))
        ):
            out |= _DIGITS
        elif op is sre.RANGE and av[0] >= 0x4E00 and av[1] <= 0x9FFF:
            out.add(CJK)
        else:
            return None  # a negation, a letter range, \w, \s: too common to be worth testing
    return frozenset(out)


def _present(needles: tuple[str, ...], cjk: bool, text: str) -> bool:
    # map() over a bound method keeps the loop in C: ~30 ns a needle.
    return any(map(text.__contains__, needles)) or (cjk and _CJK.search(text) is not None)


def _split(needles: frozenset[str] | None) -> tuple[tuple[str, ...], bool] | None:
    if needles is None:
        return None
    return tuple(sorted(needles - {CJK})), CJK in needles


class Gate:
    """A pattern and what must be in the text for it to match."""

    __slots__ = ("casefold", "needles", "pattern")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.needles = _split(required(pattern.pattern, pattern.flags))
        self.casefold = _ignores_case(pattern.pattern, pattern.flags)

    def could_match(self, text: str) -> bool:
        if self.needles is None:
            return True
        return _present(*self.needles, text.casefold() if self.casefold else text)

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text) if self.could_match(text) else None

    def match(self, text: str) -> re.Match[str] | None:
        return self.pattern.match(text) if self.could_match(text) else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.pattern.finditer(text) if self.could_match(text) else iter(())

    def sub(self, repl: Any, text: str) -> str:
        return self.pattern.sub(repl, text) if self.could_match(text) else text


class GatedNames:
    """Named alternatives, tried leftmost-first as one alternation: `finditer(text)` yields
    (name, start, end) for the groups that could match the text."""

    def __init__(self, pairs: Sequence[tuple[str, str]]) -> None:
        self.names = tuple(name for name, _ in pairs)
        self.sources = tuple(src for _, src in pairs)
        for src in self.sources:
            # finditer() tells the groups apart by their number: no group inside a source.
            assert re.compile(src).groups == 0, src
        self.needles = tuple(_split(required(src)) for src in self.sources)
        self.casefold = tuple(_ignores_case(src, 0) for src in self.sources)
        self._compiled: dict[tuple[int, ...], re.Pattern[str]] = {}

    def finditer(self, text: str) -> Iterator[tuple[str, int, int]]:
        folded = text.casefold() if any(self.casefold) else text
        active = tuple(
            k
            for k, needles in enumerate(self.needles)
            if needles is None or _present(*needles, folded if self.casefold[k] else text)
        )
        if not active:
            return
        pattern = self._compiled.get(active)
        if pattern is None:
            pattern = re.compile("|".join(f"({self.sources[k]})" for k in active))
            self._compiled[active] = pattern
        for m in pattern.finditer(text):
            if m.lastindex:
                yield self.names[active[m.lastindex - 1]], m.start(), m.end()
