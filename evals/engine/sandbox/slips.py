"""How an incoherent customer mistypes: English typos (two letters swapped in a plain word) and
Chinese slips (a character typed twice, a particle left out, ASCII punctuation). Ids, amounts,
names and emails stay intact. Every draw comes from the customer's seeded stream."""

from __future__ import annotations

import random

_ZH_PUNCTUATION = {"，": ",", "。": ".", "？": "?", "：": ":"}
_ZH_PARTICLES = frozenset("的了吧呢啊")


def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def typos(text: str, rate: float, rng: random.Random) -> str:
    words = text.split(" ")
    out = []
    for w in words:
        # Only plain lower-case words: ids, amounts, names and emails stay intact.
        if len(w) > 3 and w.isalpha() and w.islower() and rng.random() < rate:
            i = rng.randrange(len(w) - 1)
            w = w[:i] + w[i + 1] + w[i] + w[i + 2 :]
        out.append(w)
    return " ".join(out)


def slips(text: str, rate: float, rng: random.Random) -> str:
    """An incoherent Chinese customer's slips, at the end of a run of Chinese characters
    (before punctuation, a space or Latin text): the last character typed twice, a final
    particle left out, a full-width comma or full stop typed as an ASCII one. Ids,
    amounts, names and emails (no Chinese in them) stay intact, and every word inside a
    run stays whole, as a reader of Chinese would still read it."""
    out = []
    for i, ch in enumerate(text):
        last = i + 1 == len(text) or not _is_cjk(text[i + 1])
        if ch in _ZH_PUNCTUATION and rng.random() < rate * 3:
            ch = _ZH_PUNCTUATION[ch]
        elif last and ch in _ZH_PARTICLES and rng.random() < rate * 3:
            ch = ""
        elif last and _is_cjk(ch) and rng.random() < rate * 3:
            ch = ch * 2
        out.append(ch)
    return "".join(out)
