"""How a customer answered a proposal ("I will refund $12.50 ... Shall I proceed?"): yes, no, a
yes with a complaint, a change, a question back, or unclear — in English and Simplified Chinese.

One deterministic reading (lexicons, regular expressions and the structure of the clauses; no
model). The policy guard's confirmation rule and the reference agents both act on it, so they
cannot disagree about whether the customer said yes.

How a reply is read:
- Typos of the incoherent persona (two adjacent letters of a lower-case word swapped) are
  undone against the words of the lexicons (`repair_typos`).
- The text is cut into sentences and clauses (commas, "but", "不过"...). A clause that starts a
  separate request ("Also, I'd like to freeze my membership" / "另外，…") ends the answer:
  what follows is the `aside`, a new request, not part of the answer.
- Each clause gets its cues (`answer_cues`): multi-word phrases whose single words would
  mislead first ("no problem" is a yes, "I don't have all day" is impatience, "没问题" is a
  yes), then question, change, uncertainty, negation, affirmation and hedge (complaint,
  urgency, worry).
- A change anywhere in the answer ("make it $20", "instead", "改成礼品卡"), or a "but" clause
  that adds something other than a complaint ("yes, but to my gift card", "yes, but not the
  lamp"), makes the answer a CHANGE: not a confirmation.
- Otherwise the last clause that says yes or no decides, so a self-correction reads as its
  end ("yes... wait, yes. that's right"). A question or a hesitation after the last yes
  leaves it a QUESTION or UNCLEAR; a no that names an id or amount is a CHANGE.
- A yes with a complaint, urgency, worry or an earlier question ("This is ridiculous. Yes,
  but hurry up.") is a HEDGED_YES: the action is the same, so it confirms.
- Given the proposal text, an id or amount in the answer that the proposal did not show turns
  a yes into a CHANGE ("yes, $20" to a $12.50 proposal), listed in `unshown`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from functools import cache, lru_cache

from evals.engine.understanding import answer_cues as cues


class Answer(StrEnum):
    YES = "yes"
    HEDGED_YES = "hedged_yes"  # yes, with a complaint, urgency or worry: the same action
    NO = "no"
    CHANGE = "change"  # yes-but-different, or a no that names what instead
    QUESTION = "question"  # a question back ("why do I need to confirm?")
    UNCLEAR = "unclear"

    @property
    def confirms(self) -> bool:
        return self in (Answer.YES, Answer.HEDGED_YES)


@dataclass(frozen=True, slots=True)
class Reading:
    answer: Answer
    values: tuple[str, ...] = ()  # ids and amounts named in the answer (not in the aside)
    unshown: tuple[str, ...] = ()  # those the proposal did not show (they made it a CHANGE)
    aside: str = ""  # a separate request after the answer ("Also, ...")

    @property
    def confirms(self) -> bool:
        return self.answer.confirms


_TOKEN = re.compile(r"#?[A-Za-z]*\d[\d,.]*[A-Za-z\d]*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_SENTENCES = re.compile(r"(?<=[!?;。！？；…])|(?<=\.)(?!\d)")
_CLAUSES = re.compile(
    r"(?<=[,:])(?!\d)|(?<=[，、：])|\s+[-–—]+\s+|(?=\b(?:but|however|though|although)\b)|(?=但|不过|可是)",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|[\u4e00-\u9fff]|\d+")
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(slots=True)
class _Clause:  # filled in by _read_clause, read-only after (it is cached)
    contrast: bool = False
    question: bool = False
    change: bool = False
    unsure: bool = False
    pause: bool = False
    negation: bool = False
    affirm: bool = False
    hedge: bool = False
    content: bool = False
    correction: bool = False  # names a thing ("the blue one"): after a no, what instead
    names_value: bool = False  # an id or amount

    @property
    def stance(self) -> str:
        """The position the clause takes on the proposal: q(uestion), n(o), y(es), u(nsure),
        p(ause)."""
        if self.question:
            return "q"
        if self.negation:
            return "n"
        if self.affirm:
            return "y"
        if self.unsure:
            return "u"
        return "p" if self.pause else ""


def read_answer(text: str, *, proposal: str = "") -> Reading:
    """How `text` answers a proposal; with the `proposal` text, ids and amounts the answer
    names are checked against it."""
    repaired = repair_typos(text.replace("’", "'"))
    answer_end, aside = _split_aside(repaired)
    clauses = [_read_clause(c) for c in _clauses(repaired[:answer_end])]
    answer = _decide(clauses, aside)
    values = tuple(t.rstrip(".,") for t in _TOKEN.findall(text[:answer_end]))
    unshown: tuple[str, ...] = ()
    if proposal and answer.confirms:
        unshown = _unshown(values, proposal)
        if unshown:
            answer = Answer.CHANGE
    return Reading(answer, values, unshown, text[answer_end:].strip())


def numbers_in(text: str) -> set[Decimal]:
    """The numbers written in `text` ("1,250.00" is 1250.00)."""
    out: set[Decimal] = set()
    for raw in _NUMBER.findall(text):
        try:
            out.add(Decimal(raw.replace(",", "")))
        except InvalidOperation:
            continue
    return out


def repair_typos(text: str) -> str:
    """`text` with each lower-case word that is one or two swaps of adjacent letters away from
    a word of the lexicons (and is not itself one) put back: "huryr" -> "hurry", and "rhury"
    (a slip typed twice) -> "hurry". A slip that could come from two words is left alone."""
    fixes = _typo_fixes()
    return re.sub(r"\b[a-z]{4,}\b", lambda m: fixes.get(m.group(0), m.group(0)), text)


def _swaps(word: str) -> set[str]:
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}


@cache
def _typo_fixes() -> dict[str, str]:
    vocabulary: set[str] = set()
    for pattern in cues.LEXICONS:
        vocabulary.update(re.findall(r"[a-z]{4,}", pattern.pattern))
    candidates: dict[str, set[str]] = {}
    for word in vocabulary:
        once = _swaps(word) - {word}
        twice = {w for slip in once for w in _swaps(slip)} - once - {word}
        for slip in once | twice:
            if slip not in vocabulary:
                candidates.setdefault(slip, set()).add(word)
    return {typo: next(iter(words)) for typo, words in candidates.items() if len(words) == 1}


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(text) if s.strip()]


def _clauses(text: str) -> list[str]:
    out = []
    for sentence in _sentences(text):
        out += [c.strip() for c in _CLAUSES.split(sentence) if c.strip(" ,，、:：")]
    return out


def _split_aside(text: str) -> tuple[int, str]:
    """(where the answer ends in `text`, the aside after it). An aside starts at a clause
    that opens a separate request, never at the first clause."""
    position = 0
    first = True
    for sentence in _SENTENCES.split(text):
        for clause in _CLAUSES.split(sentence):
            start = position + len(clause) - len(clause.lstrip())
            if not first and cues.ASIDE.match(clause.strip().lstrip(",，、 ")):
                return start, text[start:]
            if clause.strip(" ,，、:：.。"):
                first = False
            position += len(clause)
    return len(text), ""


def _blank(pattern: re.Pattern[str], text: str) -> tuple[bool, str]:
    blanked, n = pattern.subn(" ", text)
    return bool(n), blanked


def _any(patterns: list[re.Pattern[str]], text: str) -> tuple[bool, str]:
    found = False
    for pattern in patterns:
        hit, text = _blank(pattern, text)
        found = found or hit
    return found, text


@lru_cache(maxsize=4096)  # openers, closers and stock answers recur across trials
def _read_clause(raw: str) -> _Clause:
    c = _Clause(names_value=bool(_TOKEN.search(raw)))
    text = raw.strip()
    marker = cues.CONTRAST.match(text)
    if marker:
        c.contrast = True
        text = text[marker.end() :].strip()
    grudging, text = _any(cues.GRUDGING_YES, text)
    c.hedge, text = _any(cues.HEDGE_PHRASES, text)
    c.affirm, text = _any(cues.AFFIRM_PHRASES, text)
    c.unsure, text = _any(cues.HOLD, text)
    if grudging:
        c.affirm = c.hedge = True
    bare = text.strip(" ,，、.。!！")
    if cues.REQUEST_TO_PROCEED.match(bare):
        c.affirm = True
        text = cues.REQUEST_TO_PROCEED.sub(" ", bare)
    elif cues.QUESTION_START_EN.match(bare) or (
        bare.endswith(("?", "？")) and _WORD.search(_any(cues.NEUTRAL, bare)[1])
    ):
        c.question = True  # "please?" asks nothing
    zh_question, text = _blank(cues.QUESTION_ZH, text)
    c.question = c.question or zh_question
    c.change, text = _any(cues.CHANGE, text)
    weak_change, text = _any(cues.CHANGE_OUTSIDE_QUESTIONS, text)
    c.change = c.change or (weak_change and not c.question)
    c.correction = bool(cues.CORRECTION_AFTER_NO.match(bare))
    _, text = _any(cues.NEUTRAL, text)
    unsure, text = _any(cues.UNSURE, text)
    c.unsure = c.unsure or unsure
    c.pause, text = _any(cues.PAUSE, text)
    c.negation, text = _any(cues.NEGATION, text)
    affirm, text = _any(cues.AFFIRM, text)
    hedge, text = _any(cues.HEDGE, text)
    c.affirm = c.affirm or affirm
    c.hedge = c.hedge or hedge
    c.content = any(
        (w.lower() not in cues.FILLER and len(w) > 2)
        if not _CJK.match(w)
        else w not in cues.ZH_PARTICLES
        for w in _WORD.findall(text)
    )
    if c.contrast and not (c.content or c.stance or c.hedge):
        c.unsure = True  # "yes, but..." trails off
    return c


def _decide(clauses: list[_Clause], aside: str) -> Answer:
    if any(c.change for c in clauses) or _any(cues.CHANGE_IN_ASIDE, aside)[0]:
        return Answer.CHANGE
    previous = ""
    for c in clauses:
        # "yes, but <something>" / "no, but <something>": a qualification of the action
        # ("but to my gift card", "but not the lamp") — unless it is only a complaint ("yes,
        # but hurry up") or a stance of its own ("but okay"). After a no, a clause naming a
        # thing says what instead ("no, the blue one").
        plain = c.content and not (c.hedge or c.unsure or c.question)
        if plain and not c.affirm and c.contrast and previous in ("y", "n"):
            return Answer.CHANGE
        if plain and c.correction and previous == "n":
            return Answer.CHANGE
        previous = c.stance or previous
    stances = [(i, c.stance) for i, c in enumerate(clauses) if c.stance]
    if stances and stances[-1][1] == "p":
        return Answer.NO  # "yes. wait." — the customer holds the action
    decisive = [i for i, s in stances if s in ("y", "n")]
    if not decisive:
        return Answer.QUESTION if any(s == "q" for _, s in stances) else Answer.UNCLEAR
    last = decisive[-1]
    if clauses[last].stance == "n":
        # "no, $25" names what instead; "no, don't charge me 12.50" refuses that amount.
        named = any(c.names_value and c.stance != "n" for c in clauses)
        return Answer.CHANGE if named else Answer.NO
    later = [s for i, s in stances if i > last and s != "p"]
    if later:
        return Answer.QUESTION if later[-1] == "q" else Answer.UNCLEAR
    hedged = any(c.hedge or c.unsure for c in clauses) or any(
        s == "q" for i, s in stances if i < last
    )
    return Answer.HEDGED_YES if hedged else Answer.YES


def _unshown(values: tuple[str, ...], proposal: str) -> tuple[str, ...]:
    proposal_lower = proposal.lower()
    shown_numbers = numbers_in(proposal)
    unshown = []
    for token in values:
        if token.lower() in proposal_lower:
            continue
        numbers = numbers_in(token)
        if numbers and numbers <= shown_numbers and not re.search(r"[A-Za-z#]", token):
            continue
        unshown.append(token)
    return tuple(unshown)
