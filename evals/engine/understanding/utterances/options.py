"""The options of a choice: alternatives joined by "or" / 还是 / 或, enumerations "(a) … (b) …",
and lists ("brown, black and olive", "灰色、藏青色和橄榄绿") that a which-question refers to.

An option keeps the words that tell it apart: leading function words go ("to the card you paid
with" → "card you paid with"), and so do the leading auxiliaries of a question ("was it
damaged" → "damaged")."""

from __future__ import annotations

import re

_FUNCTION = frozenset(
    [
        "to",
        "for",
        "the",
        "a",
        "an",
        "your",
        "my",
        "our",
        "just",
        "only",
        "with",
        "as",
        "in",
        "on",
        "via",
        "by",
        "it",
        "is",
        "was",
        "this",
        "that",
        "be",
        "go",
        "either",
        "oh",
        "and",
        "so",
        "then",
        "whether",
        "would",
        "should",
        "do",
        "does",
        "did",
        "are",
        "were",
        "can",
        "could",
        "will",
        "shall",
        "you",
        "i",
        "we",
        "like",
        "want",
        "prefer",
        "rather",
        "have",
        "pick",
        "choose",
        "between",
        "or",
        "what",
    ]
)
_CONJUNCTION = re.compile(r"(?:and|but|so|oh|well|ok|okay)\b")
_LEAD = re.compile(
    r"(?:which|what|where|when|how|who|would|should|could|can|do|does|did|is|are|will|shall)\b"
)
# The function words that may stand before or after an option without changing it: the
# prepositions, articles and possessives of _FUNCTION, none of its verbs or pronouns.
_ALIGN = _FUNCTION & frozenset(
    [
        "to",
        "for",
        "the",
        "a",
        "an",
        "your",
        "my",
        "our",
        "with",
        "as",
        "in",
        "on",
        "via",
        "by",
        "just",
        "only",
    ]
)
_MARKERS = frozenset(
    ["whether", "like", "prefer", "rather", "want", "choose", "pick", "between", "either"]
)
_DETERMINERS = frozenset(["the", "a", "an", "your", "my", "our", "this", "that"])
_NOT_ALTERNATIVE = re.compile(
    r"\byes or no\b|\bor not\b|\bor so\b|\bmore or less\b|\bsooner or later\b|\band/or\b|\b(?:one|a sentence|a day|a minute) or two\b"
)
_EN_OR = re.compile(r",?\s+or\s+(?:else\s+)?")
_ENUM = re.compile(r"(?:^|[\s,;])(?:\(\s*[a-z1-9]\s*\)|[a-z1-9]\))\s+")
_ZH_ENUM = re.compile(r"(?:^|\s)[A-Da-d1-9][.、)）]\s*")
_ZH_OR = re.compile(r"还是|或者|或(?!许)")
_ZH_LIST_END = re.compile(r"和|及|以及|与")
_ZH_LEAD = re.compile(
    r"^(?:请问|是想|是要|还是|或者|或|是|要|想|选|只|仅|改为|改成|换成|退到|退回到?|退款|给您|为您|帮您|用|到|\s)+"
)
_ZH_TAIL = re.compile(
    r"(?:可供选择|供选择|可选|可以吗|好吗|行吗|可以|方便|吗|呢|呀|啊|[？?。！!，,\s])+$"
)
_ZH_MARKERS = re.compile(r"给您|为您|帮您|是|要|想|选")


def option_key(option: str) -> str:
    """The comparable form of an option: lower-cased, without leading function words."""
    text = option.strip().lower().strip(" .,!?;:。？！，")
    if re.search(r"[\u4e00-\u9fff]", text):
        text = _ZH_LEAD.sub("", text)
        return _ZH_TAIL.sub("", text).strip()
    words = text.split()
    while words and words[0] in _FUNCTION:
        words.pop(0)
    while words and words[-1] in ("instead", "then", "please", "one"):
        words.pop()
    return " ".join(words)


def _clean(options: list[str]) -> list[str] | None:
    keys = [option_key(o) for o in options]
    keys = [k for k in keys if k]
    return keys if len(keys) >= 2 else None


def alternatives(text: str) -> list[str] | None:
    """The options a question offers, or None when it offers none."""
    if re.search(r"[\u4e00-\u9fff]", text):
        return _zh_alternatives(text)
    body = _NOT_ALTERNATIVE.sub(" ", text.strip().rstrip(" ?.!"))
    if len(_ENUM.findall(" " + body)) >= 2:
        return _clean([p.strip(" ,;") for p in _ENUM.split(" " + body)[1:]])
    parts = _EN_OR.split(body)
    if len(parts) < 2:
        return None
    last = parts[-1]
    pre = " or ".join(parts[:-1]) if len(parts) > 2 else parts[0]
    if any(_requests(p) for p in (last, pre.split(",")[-1])):
        return None
    head = _head_items(pre, last, strip=True)
    return _clean([*head, last])


def list_items(text: str, zh: bool) -> list[str] | None:
    """The items of a list ("A, B and C", "A、B和C", "A, B" after a colon), or None."""
    if zh:
        body = _ZH_TAIL.sub("", text.strip())
        if "：" in body or ":" in body:
            body = re.split(r"[：:]", body)[-1]
        parts = [p for p in re.split(r"、|" + _ZH_LIST_END.pattern, body) if p.strip()]
        if len(parts) < 2:
            return None
        parts[0] = re.split(r"有|是|为|包括|包含", parts[0])[-1]
        return _clean(parts)
    body = text.strip().rstrip(" .!?")
    m = re.search(r",?\s+(?:and|or)\s+", body)
    if m is None:
        items = [p for p in body.split(",") if p.strip()]
        return (
            _clean(items) if len(items) >= 2 and all(len(p.split()) <= 4 for p in items) else None
        )
    last = body[m.end() :]
    head = _head_items(body[: m.start()], last, strip=False)
    return _clean([*head, last]) if len(head) >= 2 else None


def _requests(part: str) -> bool:
    from evals.engine.understanding.utterances.lexicon import REQUEST_VERBS

    return bool(REQUEST_VERBS.search(part))


def _head_items(pre: str, last: str, *, strip: bool) -> list[str]:
    """The items before the last one: comma-separated short items, the first of them cut
    from whatever leads into the list ("come in brown" → "brown", "which appointment should
    I cancel" is a lead, not an item)."""
    segments = [s.strip() for s in pre.split(",") if s.strip()]
    if not segments:
        return []
    items: list[str] = []
    while (
        len(segments) > 1
        and len(segments[-1].split()) <= 4
        and not _CONJUNCTION.match(segments[-1])
    ):
        items.insert(0, segments.pop())
    words = segments[-1].split()
    reference = (items[0] if items else last).split()
    for word in reference[:3]:
        if word not in _ALIGN:
            break
        # "the blue or the green", "your card or a gift card": determiners align with each other.
        same = _DETERMINERS if word in _DETERMINERS else {word}
        hits = [k for k, w in enumerate(words) if w in same]
        if hits:
            return [" ".join(words[hits[-1] :]), *items]
    if not strip:
        widths = [len(x.split()) for x in [*items, last]]
        return [" ".join(words[-max(widths) :]), *items]
    if items and _LEAD.match(segments[-1]):
        return items
    markers = [k for k, w in enumerate(words[:-1]) if w in _MARKERS]
    if markers:
        words = words[
            markers[-1] + 1 :
        ]  # "... whether you'd like it on your card" -> "it on your card"
    while len(words) > 1 and words[0] in _FUNCTION:
        words.pop(0)
    return [" ".join(words), *items]


def _zh_alternatives(text: str) -> list[str] | None:
    body = _ZH_TAIL.sub("", text.strip())
    if len(_ZH_ENUM.findall(body)) >= 2:
        return _clean(_ZH_ENUM.split(body)[1:])
    parts = _ZH_OR.split(body)
    if len(parts) < 2 or any(_requests(p) for p in parts[-2:]):
        return None
    head = parts[0].rstrip("，, ")
    items = head.split("、")
    first = re.split(r"[，,：:]", items[0])[-1]
    lead = _ZH_MARKERS.match(first) or _ZH_MARKERS.search(first)
    if lead:
        first = first[lead.start() :]
        first = re.sub(r"^(?:给您|为您|帮您|是|要|想|选)+", "", first)
    last = re.split(r"[，,]", parts[-1])[0]
    return _clean([first, *items[1:], *parts[1:-1], last])
