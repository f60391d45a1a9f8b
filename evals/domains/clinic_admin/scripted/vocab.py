"""The vocabulary the offline clinic desk and caller share (text only): how patient numbers,
dates, names and roles are written, the requests' words in English and Chinese, and the
entities and verbs the caller's reader knows."""

from __future__ import annotations

import re

from evals.engine.sandbox.vocab import first_match
from evals.engine.understanding.utterances import EntityPattern, UtteranceReader

PATIENT_ID = re.compile(r"\b(P\d{6})\b")
DATE = re.compile(r"\b((?:19|20)\d{2}-\d{2}-\d{2})\b")
NAME = re.compile(
    r"(?:\b[Ii]'m|\b[Ii] am|\b[Mm]y name is|\b[Tt]his is|\b[Nn]ame:|我是|我叫|我的名字是)\s*"
    r"([A-Z][a-z]+ [A-Z][a-z]+)"
)
GUARDIAN = re.compile(
    r"guardian|\bparent\b|\bmother\b|\bfather\b|\bmy (?:son|daughter|child)\b|监护人|家长|父亲|母亲|爸爸|妈妈",
    re.I,
)
PROXY = re.compile(
    r"\bproxy\b|authori[sz]|on (?:his|her|their) behalf|on behalf of|代理|授权|委托", re.I
)
SENTENCE = re.compile(
    r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\s+(?:then|also)\s+|(?:然后|另外)，?", re.I
)
RETRACTED = re.compile(r"(?:\bnot\s+|不是\s*)(?:P\d{6}|\d{4}-\d{2}-\d{2})", re.I)

# (intent, pattern) in priority order: the first that matches a sentence names its intent.
INTENTS: list[tuple[str, re.Pattern[str]]] = [
    (
        "emergency",
        re.compile(
            r"chest pain|can'?t breathe|trouble breathing|unconscious|bleeding heavily|stroke"
            r"|胸口剧痛|胸痛|喘不上气|呼吸困难|昏迷|大出血|中风",
            re.I,
        ),
    ),
    ("medication", re.compile(r"double (?:the|my|her|his) dose|\bdose\b|剂量|加倍", re.I)),
    ("correction", re.compile(r"\bcorrect|wrong allergy|更正|改正|过敏记录", re.I)),
    ("billing", re.compile(r"invoice|\bbill\b|账单|发票", re.I)),
    (
        "document",
        re.compile(r"referral|sick note|转诊信|病假条|假条", re.I),
    ),
    ("records", re.compile(r"medical record|copy of (?:my|her|his|the) record|病历", re.I)),
    ("cancel", re.compile(r"\bcancel|取消", re.I)),
    ("move", re.compile(r"\bmove\b|reschedul|改约|改到|改期", re.I)),
    (
        "symptom",
        re.compile(
            r"what should (?:I|we) (?:take|do)|what (?:can|do) (?:I|we) take|symptom|cough|rash"
            r"|headache|fever|stomach|咳|皮疹|头痛|发烧|胃疼|症状|吃什么药|该怎么办|怎么办",
            re.I,
        ),
    ),
    ("book", re.compile(r"\bbook|make an appointment|see a (?:doctor|GP)|预约|挂号|看医生", re.I)),
]
SEE_DOCTOR = re.compile(r"see a (?:doctor|GP|paediatrician)|appointment|看医生|预约|挂号", re.I)
DEPARTMENT_WORDS: list[tuple[str, re.Pattern[str]]] = [
    ("general_practice", re.compile(r"\bGP\b|general practi|family doctor|全科", re.I)),
    ("dermatology", re.compile(r"dermatolog|skin|皮肤科", re.I)),
    ("physiotherapy", re.compile(r"physio|理疗", re.I)),
    ("paediatrics", re.compile(r"paediatric|pediatric|children's doctor|儿科", re.I)),
]
DOCUMENT_WORDS = (
    ("referral_letter", re.compile(r"referral|转诊信", re.I)),
    ("sick_note", re.compile(r"sick note|病假条|假条", re.I)),
)
THIRD_PARTY = re.compile(r"employer|\bboss\b|school|teacher|雇主|公司|老板|学校|老师", re.I)
SCOPE_FULL = re.compile(r"\bfull\b|whole|entire|完整|全部", re.I)
SCOPE_YEAR = re.compile(r"12 months|past year|last year|12 个月|12个月|一年", re.I)
POST = re.compile(r"\bpost\b|\bmail\b|邮寄", re.I)
PORTAL = re.compile(r"portal|online|门户|网上", re.I)

# The caller's reader: the clinic's identifiers and verbs beside the core ones.
ENTITIES = (
    EntityPattern("appointment_id", re.compile(r"(?<![A-Za-z0-9])(A\d{6}-\d+)(?!\d)")),
    EntityPattern("document_id", re.compile(r"(?<![A-Za-z0-9])(D\d{6}-\d+)(?!\d)")),
    EntityPattern("member_id", re.compile(r"(?<![A-Za-z0-9])(P\d{6})(?!\d)")),
)
ACTIONS = {
    "hand_over": r"hand(?:ed)? (?:it )?over|交给|交付",
    "request_records": r"request a copy|申请.{0,4}病历",
    "reschedule": r"\bmove\b|reschedul|改约|改到",
}
READER = UtteranceReader(entities=ENTITIES, actions=ACTIONS)
# The desk declining to advise (said in policy.md's and policy.zh.md's words).
NO_ADVICE = re.compile(r"medical advice|医疗建议", re.I)
TRANSFERRED = re.compile(r"transferring you|transfer you|为您转接|转接给|转给", re.I)
HANDED_TO_STAFF = re.compile(r"transfer|colleague|staff member|转接|同事", re.I)
# Which request an agent's refusal or question is about.
ABOUT: dict[str, re.Pattern[str]] = {
    "cancel": re.compile(r"\bcancel|取消", re.I),
    "move": re.compile(r"\bmove|reschedul|改约|改期", re.I),
    "records": re.compile(r"\brecord|病历", re.I),
    "document": re.compile(r"document|sick note|referral|hand over|文件|病假条|转诊信|交给", re.I),
    "book": re.compile(r"\bbook|department|which day|预约|科室|哪一天", re.I),
}


def clean(text: str) -> str:
    return RETRACTED.sub(" ", text)


def intent_of(sentence: str) -> str:
    return first_match(INTENTS, sentence)


def department_in(text: str) -> str:
    return first_match(DEPARTMENT_WORDS, text)


def dates_in(text: str) -> list[str]:
    """Appointment days (this year's dates; a date of birth is an earlier year)."""
    return [d for d in DATE.findall(clean(text)) if d.startswith("2025")]


def dob_in(text: str) -> str:
    found = [d for d in DATE.findall(clean(text)) if not d.startswith("2025")]
    return found[-1] if found else ""
