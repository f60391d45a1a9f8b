"""The vocabulary of the offline airline agent and customer: how booking references, last
names, emails, dates, bag counts, passenger names and cities are written (the agent parses the
customer with these), and the entities and verbs the customer's reader knows (`READER`).
Nothing but text passes between them."""

from __future__ import annotations

import re

from evals.domains.airline.world import CITIES
from evals.engine.sandbox.agent import EMAIL  # noqa: F401  (vocab.EMAIL for both models)
from evals.engine.sandbox.vocab import first_match
from evals.engine.understanding.utterances import EntityPattern, UtteranceReader

BOOKING_REF = re.compile(r"(?<![A-Za-z0-9])([A-Z][A-Z0-9]{4}[0-9])(?![A-Za-z0-9])")
LAST_NAME = re.compile(
    r"(?:last name|surname)(?: is)?\s+([A-Z][A-Za-z'-]+)|姓+(?:氏+)?(?:是+)?\s*([A-Z][A-Za-z'-]+)"
)
# "Sorry, my mistake: it's Vogel, not Vogek." — a corrected value, then the retracted one.
CORRECTION = re.compile(
    r"\bit'?s ([A-Z][A-Za-z'-]+), not ([A-Z][A-Za-z'-]+)|是+ ?([A-Z][A-Za-z'-]+)[，,]不是+ ?([A-Z][A-Za-z'-]+)"
)
DATE = re.compile(r"\b(2026-\d{2}-\d{2})\b")
WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
                "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}  # fmt: skip
BAGS = re.compile(
    r"\b(\d|one|two|three|four|five) (?:more |extra )?(?:checked )?bags?\b"
    r"|(\d|[一二两三四五]) ?件(?:托运)?行李",
    re.IGNORECASE,
)
NEW_NAME = re.compile(
    r"(?:should be|should read|to my colleague|应该是|应为|换成我同事|改成我同事)\s*"
    r"([A-Z][A-Za-z'-]+) ([A-Z][A-Za-z'-]+)"
)
FULL_NAME = re.compile(r"([A-Z][a-z'-]+) ([A-Z][A-Za-z'-]+)")
SENTENCE = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|(?:另外|还有)，?", re.IGNORECASE)

# (intent, pattern) in priority order: the first that matches a sentence names its intent.
INTENTS: list[tuple[str, re.Pattern[str]]] = [
    (
        "dispute",
        re.compile(r"\bdisput|(?:a person|someone|a human) to review|异议|申诉|复核", re.I),
    ),
    (
        "exception",
        re.compile(
            r"hospital|medical|bereave|funeral|doctor|passed away|住院|医院|医生|丧事|去世|葬礼",
            re.I,
        ),
    ),
    ("compensation", re.compile(r"compensat|\bcomp\w{4,8}tion\b|补偿|赔偿", re.I)),
    ("new_passenger", re.compile(r"\badd\b.{0,30}passenger|添加.{0,12}乘客|加.{0,8}为乘客", re.I)),
    (
        "remove",
        re.compile(
            r"\btake .{1,40} off\b|\bremove\b|off the reservation|can'?t come|移除|去掉|来不了",
            re.I,
        ),
    ),
    ("name", re.compile(r"misspel|\bname on\b|the name|拼错|姓名|名字", re.I)),
    ("bags", re.compile(r"\bbags?\b|luggage|行李", re.I)),
    ("change", re.compile(r"move my flight|change my flight|rebook|改签|改到|换到", re.I)),
    # "cancel", and the same six letters with two swapped by a typing slip ("canecl").
    ("cancel", re.compile(r"\bcancel|\b(?=\w*n)(?=\w*e)[acnel]{6}\b|取消", re.I)),
]

CITY_NAMES: dict[str, str] = {}
for _c in CITIES.values():
    CITY_NAMES[_c.name.lower()] = _c.name
    CITY_NAMES[_c.zh] = _c.name
CITY = re.compile("|".join(re.escape(k) for k in sorted(CITY_NAMES, key=len, reverse=True)), re.I)

TRANSFER = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."

# What the customer reads in an agent's message beyond the core entities: booking references,
# flights, cities, and the airline's verbs.
ENTITIES = (
    EntityPattern("booking_id", BOOKING_REF),
    EntityPattern("flight_id", re.compile(r"(?<![A-Za-z0-9])(AU\d{3}-2026-\d{2}-\d{2})(?!\d)")),
    EntityPattern.terms("city", {c.name: (c.name, c.zh) for c in CITIES.values()}),
)
ACTIONS = {
    "change_flight": r"\bchang\w* (?:\S+ ){0,5}?(?:flight|to flight)|\bmov\w* (?:\S+ ){0,5}?(?:flight|to flight)|\brebook\w*|改签|改到",
    "add_passenger": r"\badd\w* (?:\S+ ){0,5}?passengers?|添加乘客|增加乘客",
    "remove_passenger": r"\bremov\w*|移除",
    "add_bags": r"checked bags?|\bbags?\b|托运行李|行李",
    "correct_name": r"\bcorrect\w* (?:\S+ ){0,4}?name|\bname\b|姓名",
    "compensate": r"certificate|compensat\w*|补偿|旅行券",
}
READER = UtteranceReader(entities=ENTITIES, actions=ACTIONS)


def intent_of(sentence: str) -> str:
    return first_match(INTENTS, sentence)


def bags_in(text: str) -> int:
    m = BAGS.search(text)
    if not m:
        return 0
    raw = (m.group(1) or m.group(2)).lower()
    return WORD_NUMBERS.get(raw) or int(raw)


def cities_in(text: str) -> list[str]:
    """The cities named in `text`, in English, in the order they are named."""
    return [
        CITY_NAMES[m.group(0).lower() if m.group(0).isascii() else m.group(0)]
        for m in CITY.finditer(text)
    ]
