"""Light clause splitting: lines (bullets, table rows), sentences, then sub-clauses at dashes,
colons, semicolons and Chinese commas; plus the lower-cased "cue" form of each clause that the
lexicon reads (contractions expanded, emails and quoted titles masked)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from evals.engine.understanding.utterances.gate import Gate

_TRANSLATE = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "\u00a0": " ", "\u3000": " "})
_MARKDOWN = re.compile(r"\*\*|__|`|^\s{0,3}#{1,6}\s+|^\s*\|?\s*:?-{3,}.*$", re.MULTILINE)
_BULLET = re.compile(r"^\s*(?:[-*•·+]|\d{1,2}[.)、]|[a-zA-Z][.)](?=\s)|\([a-zA-Z0-9]\))\s*")
_ABBREVIATIONS = (
    "e.g",
    "i.e",
    "g",
    "e",
    "mr",
    "mrs",
    "ms",
    "dr",
    "no",
    "vs",
    "etc",
    "approx",
    "st",
)
# "e.g.", "No. 5", "A. 原支付方式 B. 礼品卡": a full stop after these does not end a sentence.
_LAST_WORD = re.compile(r"(?<![A-Za-z])([A-Za-z]{1,6})\.$")
_CJK = re.compile(r"[\u4e00-\u9fff]")
# Unpunctuated Chinese runs acts together ("订单已取消还有其他需要帮忙的吗"): a new clause
# starts where one of these openers follows a Chinese character.
_ZH_OPENER = re.compile(
    r"(?<=[\u4e00-\u9fff])(?=还有(?:其他|别的|什么)|请问|请(?:提供|告诉|您|先|再|在)|麻烦|您能|能否|"
    r"是否(?:继续|确认|需要|同意|办理|提交))"
)
_SUBCLAUSE = re.compile(
    r"\s+[—–]+\s*|\s*—{1,2}\s*|\s+-{1,2}\s+|:\s+|：\s*|;\s*|；\s*|，\s*|,(?=[\u4e00-\u9fff])"
    r"|,\s+(?=and\s+(?:was|is|are|were|do|does|did|would|could|can|should|will|what|which|how|when|where|why)\b)"
)
_CONTRACTIONS = re.compile(
    r"\b(can't|cannot|won't|shan't|i'm|let's|(?:it|that|what|there|here|who|where|how)'s)\b|n't\b|'re\b|'ve\b|'ll\b|'d\b"
)
_EXPANSIONS = {
    "can't": "can not", "cannot": "can not", "won't": "will not", "shan't": "shall not",
    "i'm": "i am", "let's": "let us", "n't": " not", "'re": " are", "'ve": " have",
    "'ll": " will", "'d": " would",
}  # fmt: skip
_MASK = re.compile(
    r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}|https?://\S+"
    r"|(?<![\w])'(?=\S)[^'\n]{1,60}?(?<=\S)'(?![\w])|\"[^\"\n]{1,60}\"|[「『《][^」』》\n]{1,60}[」』》]"
)
_MASK_GATE, _CONTRACTIONS_GATE = Gate(_MASK), Gate(_CONTRACTIONS)
_EN_QUESTION_START = re.compile(
    r"^(?:so,?\s+|and\s+|oh,?\s+|okay,?\s+|ok,?\s+|right,?\s+|also,?\s+|now,?\s+|then,?\s+|quick question,?\s+)?"
    r"(?:what|which|when|where|who|whom|whose|why|how|is|are|was|were|do|does|did|can|could|would|will|shall|should|may|have|has|any|anything)\b"
)
_ZH_QUESTION = re.compile(
    r"[吗呢么吧][\s。！!…~～]*$|是否|能否|可否|要不要|是不是|对不对|行不行|可不可以|有没有"
    r"|^(?!.*(?:才能|以便|为了|方便我))(?:.*(?:哪|什么|多少|几(?!天内|天后|个工作日)|怎么))"
)


@dataclass(slots=True)
class Clause:
    text: str  # as written (normalised)
    cue: str  # lower-cased, contractions expanded, emails and quoted titles masked
    start: int
    end: int
    sentence: int  # index of the sentence the clause belongs to
    line: int
    bullet: bool
    zh: bool
    question: bool  # the clause asks (question mark, question word, Chinese particle)
    intro: bool  # the clause introduces what follows (ends with a colon or a dash)


def normalize(text: str) -> str:
    return _MARKDOWN.sub("", text.translate(_TRANSLATE).replace("|", "\n"))


def cue_of(text: str) -> str:
    low = _MASK_GATE.sub(" § ", text).lower()
    return _CONTRACTIONS_GATE.sub(_expand, low)


def _expand(m: re.Match[str]) -> str:
    word = m.group(0)
    if word in _EXPANSIONS:
        return _EXPANSIONS[word]
    return word[:-2] + " is"  # it's, that's, what's, there's ...


def split(text: str) -> list[Clause]:
    clauses: list[Clause] = []
    sentence = 0
    offset = 0
    for line_no, line in enumerate(text.split("\n")):
        line_start = offset
        offset += len(line) + 1
        bullet = _BULLET.match(line)
        body_start = bullet.end() if bullet else 0
        if not line[body_start:].strip():
            continue
        for s_start, s_end in _sentences(line, body_start):
            sentence += 1
            raw = line[s_start:s_end]
            asks = raw.rstrip().endswith(("?", "？"))
            pieces = list(_pieces(raw))
            for index, (p_start, p_end, intro) in enumerate(pieces):
                piece = raw[p_start:p_end]
                stripped = piece.strip(" \t,，.。!！")
                if not stripped.strip("?？"):
                    continue
                lead = len(piece) - len(piece.lstrip())
                abs_start = line_start + s_start + p_start + lead
                clause_text = piece.strip()
                zh = bool(_CJK.search(clause_text))
                cue = cue_of(clause_text)
                last = index == len(pieces) - 1
                clauses.append(
                    Clause(
                        text=clause_text,
                        cue=cue,
                        start=abs_start,
                        end=abs_start + len(clause_text),
                        sentence=sentence,
                        line=line_no,
                        bullet=bool(bullet),
                        zh=zh,
                        question=(asks and last) or _asks(cue, zh),
                        intro=intro or clause_text.endswith((":", "：")),
                    )
                )
    return clauses


def _asks(cue: str, zh: bool) -> bool:
    body = cue.strip(" §*-")
    if body.endswith(("?", "？")):
        return True
    if zh:
        return bool(_ZH_QUESTION.search(body))
    return bool(_EN_QUESTION_START.match(body))


def _sentences(line: str, start: int) -> list[tuple[int, int]]:
    spans = []
    begin = start
    i = start
    n = len(line)
    while i < n:
        ch = line[i]
        cut = -1
        if ch in "。！？；…":
            cut = i + 1
            while cut < n and line[cut] in "。！？!?…」”\"')":
                cut += 1
        elif ch in ".!?" and (i + 1 == n or line[i + 1].isspace() or _CJK.match(line[i + 1])):
            word = _LAST_WORD.search(line[begin : i + 1])
            short = word is not None and (
                len(word.group(1)) == 1 or word.group(1).lower() in _ABBREVIATIONS
            )
            if ch != "." or not short:
                cut = i + 1
        if cut > 0:
            if line[begin:cut].strip():
                spans.append((begin, cut))
            begin = cut
            i = cut
            continue
        i += 1
    if line[begin:].strip():
        spans.append((begin, n))
    return spans


def _pieces(sentence: str) -> list[tuple[int, int, bool]]:
    """(start, end, intro) of the sentence's sub-clauses; `intro` when it ends with a colon."""
    marks = sorted(
        [
            (m.start(), m.end(), bool(re.search(r"[:：—–]|\s-", m.group())))
            for m in _SUBCLAUSE.finditer(sentence)
        ]
        + [(m.start(), m.start(), False) for m in _ZH_OPENER.finditer(sentence)]
    )
    pieces = []
    begin = 0
    for m_start, m_end, colon in marks:
        if m_start < begin:
            continue
        if sentence[begin:m_start].strip():
            pieces.append((begin, m_start, colon))
        begin = m_end
    pieces.append((begin, len(sentence), False))
    return pieces
