"""The vocabulary of the offline retail models: how the reference agent reads the customer
(ids, emails, addresses, amounts, intents) and how the customer reads any agent (`READER`, the
utterance reader with retail's entities). Both sides parse *text*; nothing else passes between
them. What the agent says is in `phrasings`."""

from __future__ import annotations

import re

from evals.engine.sandbox.agent import EMAIL  # noqa: F401  (vocab.EMAIL for both models)
from evals.engine.sandbox.vocab import first_match
from evals.engine.understanding.utterances import EntityPattern, UtteranceReader

ORDER_ID = re.compile(r"#?\bW(\d{7})\b")
ZIP = re.compile(r"(?<![\d#W])\b(\d{5})\b(?!\d)")
NAME = re.compile(
    r"(?i:my name is|i am|i'm|this is|name is|name:|我叫+|我是+)\s*([A-Z][a-z]+)\s+([A-Z][a-z]+)"
)
ADDRESS = re.compile(
    r"(\d+ [A-Z][a-z]+ (?:Street|Avenue|Road|Lane|Drive)),\s*([A-Z][a-z]+),\s*(\d{5})"
)
AMOUNT = re.compile(r"\$\s?(\d+(?:\.\d{2})?)")
SENTENCE = re.compile(
    r"(?<=[.!?;])\s+|\s+(?:then|also|and also)\s+|(?<=[。！？；])\s*|(?:然后|另外)，?",
    re.IGNORECASE,
)

# (intent, pattern) in priority order: the first that matches a sentence names its intent.
INTENTS: list[tuple[str, re.Pattern[str]]] = [
    (
        "dispute",
        re.compile(
            r"disput|charged twice|double charge|chargeback|重复扣款|扣了两次|争议|申诉", re.I
        ),
    ),
    (
        "price_adjustment",
        re.compile(r"price adjustment|price (?:dropped|went down)|价格调整|降价", re.I),
    ),
    ("damaged", re.compile(r"damaged|broken|cracked|损坏|坏了|破损", re.I)),
    (
        "status",
        re.compile(
            r"how much (?:was|has been) refunded|refund status|refunded so far|退了多少|退款进度",
            re.I,
        ),
    ),
    (
        "default_address",
        re.compile(r"default address|profile address|account address|默认地址", re.I),
    ),
    (
        "order_address",
        re.compile(r"shipping address|ship (?:it|the order|order|my order)|收货地址", re.I),
    ),
    ("cancel", re.compile(r"\bcancel|取消", re.I)),
    ("exchange", re.compile(r"\bexchange|\bswap|换货|换成", re.I)),
    ("return", re.compile(r"\breturn\b|退货", re.I)),
]
REASONS = {
    "ordered by mistake": re.compile(r"by mistake|by accident|mistakenly|下错单|误下单", re.I),
    "no longer needed": re.compile(
        r"no longer need|don't need|do not need|not needed|不再需要|不需要", re.I
    ),
}
GIFT_CARD = re.compile(r"gift ?card|礼品卡", re.I)
ORIGINAL = re.compile(
    r"original payment|original method|my card|credit card|paypal|card you paid with|"
    r"same card|原支付方式|原付款方式",
    re.I,
)

NOT_THIS = re.compile(r"(?:\bnot|不是+)\s*#?W\d{7}\b", re.IGNORECASE)


def order_ids(text: str) -> list[str]:
    """Order ids in `text`, leaving out one the customer retracts ("#W1, not #W2")."""
    return [f"#W{m}" for m in ORDER_ID.findall(NOT_THIS.sub(" ", text))]


def intent_of(sentence: str) -> str:
    return first_match(INTENTS, sentence)


# -- how the customer reads the agent (any agent: by intent and entities) ----------------------
# Retail's own entities for the utterance reader: order ids, the catalogue's products, the
# cancellation reasons and the two ways a refund is paid, in English and Chinese.
ITEM_NAMES: dict[str, tuple[str, ...]] = {
    "water bottle": ("水杯", "水瓶"),
    "backpack": ("背包", "双肩包"),
    "desk lamp": ("台灯",),
    "running shoes": ("跑鞋", "跑步鞋"),
    "t-shirt": ("t恤", "T恤"),
    "headphones": ("耳机",),
    "coffee maker": ("咖啡机",),
    "yoga mat": ("瑜伽垫",),
}
REASON_NAMES: dict[str, tuple[str, ...]] = {
    "no longer needed": ("no longer need it", "don't need it anymore", "不再需要", "不需要了"),
    "ordered by mistake": (
        "by mistake",
        "ordered it by mistake",
        "mistaken order",
        "误下单",
        "下错单",
    ),
}
REFUND_NAMES: dict[str, tuple[str, ...]] = {
    "gift_card": ("gift card", "gift-card", "礼品卡"),
    "original_payment": (
        "original payment method",
        "original payment",
        "original method",
        "the card you paid with",
        "card you paid with",
        "your card",
        "the same card",
        "原支付方式",
        "原付款方式",
        "原路",
    ),
}
ENTITIES = (
    EntityPattern(
        "order_id",
        re.compile(r"(?<![A-Za-z0-9])(#?W\d{7})(?!\d)"),
        lambda s: "#" + s.lstrip("#").upper(),
    ),
    EntityPattern.terms("item", ITEM_NAMES),
    EntityPattern.terms("reason", REASON_NAMES),
    EntityPattern.terms("refund_to", REFUND_NAMES),
)
READER = UtteranceReader(entities=ENTITIES)
