"""The vocabulary the offline telecom agent and customer share (text only): how identities,
intents, proposals, the steps on the phone and the phone's reports are written, in English and
Chinese. The agent reads the customer with these; the customer reads the agent with these and
with the engine's `UtteranceReader` (`READER`, with this domain's entities)."""

from __future__ import annotations

import re

from evals.engine.sandbox.agent import EMAIL  # noqa: F401  (vocab.EMAIL for both models)
from evals.engine.sandbox.vocab import first_match
from evals.engine.understanding.utterances import EntityPattern, UtteranceReader

PHONE = re.compile(r"\+\d-\d{3}-\d{4}")
DOB = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
RETRACTED = re.compile(r"(?:\bnot\s+|不是+\s*)\d{4}-\d{2}-\d{2}", re.IGNORECASE)
GB = re.compile(r"\b([15])\s?GB\b", re.IGNORECASE)
SENTENCE = re.compile(
    r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\s+(?:then|also)\s+|(?:然后|另外)，?", re.I
)
PLAN = re.compile(r"\b(basic|plus|unlimited)\b", re.IGNORECASE)
PERIOD = re.compile(r"\b(April|May|June)\b|(?<!\d)([4-6]) ?月(?!份?\d)", re.IGNORECASE)
MONTH_NUMBERS = {"april": "04", "may": "05", "june": "06", "4": "04", "5": "05", "6": "06"}

# The intents about the customer's phone (the agent walks the customer through it), not its
# account.
DEVICE_INTENTS = {
    "no_service",
    "no_data",
    "no_data_abroad",
    "app_offline",
    "sim_locked",
    "sim_broken",
}
# (intent, pattern) in priority order: the first that matches a sentence names its intent.
INTENTS: list[tuple[str, re.Pattern[str]]] = [
    ("dispute", re.compile(r"disput|contest|wrong and (?:I )?want a person|异议|争议|申诉", re.I)),
    ("sim_locked", re.compile(r"\bPUK\b", re.I)),
    ("sim_broken", re.compile(r"no SIM|into water|water damage|没有 ?SIM|无 ?SIM|进水", re.I)),
    ("app_offline", re.compile(r"\bapp\b|应用", re.I)),
    ("plan_change", re.compile(r"\bplan\b|套餐", re.I)),
    ("bill_payment", re.compile(r"\bpay\b.*\bbill\b|支付.*账单|付.*账单", re.I)),
    (
        "no_data_abroad",
        re.compile(r"abroad|travell?ing|in (?:France|Japan|Spain)|国外|出国|旅行|旅游", re.I),
    ),
    ("no_data", re.compile(r"mobile data|no data|移动数据|上不了网", re.I)),
    ("no_service", re.compile(r"no service|无服务|没有信号|没信号", re.I)),
]


def intent_of(sentence: str) -> str:
    return first_match(INTENTS, sentence)


# -- what the phone reports (the customer's words, read by the agent) -------------------------

SIGNALS: dict[str, tuple[str, str]] = {
    "4 bars": ("4 bars", "4 格信号"),
    "no service": ("no service", "无服务"),
    "airplane mode": ("airplane mode", "飞行模式"),
    "no SIM": ("no SIM", "无 SIM 卡"),
    "SIM locked": ("SIM locked", "SIM 卡已锁定"),
}
ON_OFF = {"on": ("on", "开"), "off": ("off", "关")}
WORKING = {"working": ("working", "正常"), "not working": ("not working", "不可用")}
SIM_STATES = {
    "ready": ("ready", "就绪"),
    "PUK locked": ("PUK locked", "PUK 锁定"),
    "not detected": ("not detected", "未检测到"),
}
ALLOWED = {"allowed": ("allowed", "允许"), "not allowed": ("not allowed", "不允许")}

_STATUS = re.compile(r"(?:status bar|状态栏)\s*[:：]\s*([^.。;；]+)", re.I)
_CONNECTION = re.compile(r"(?:data connection|数据连接)\s*[:：]\s*([^.。;；]+)", re.I)
_SETTING = {
    "airplane_mode": re.compile(r"(?:airplane mode|飞行模式)\s*[:：]\s*(on|off|开|关)", re.I),
    "mobile_data": re.compile(r"(?:mobile data|移动数据)\s*[:：]\s*(on|off|开|关)", re.I),
    "data_roaming": re.compile(r"(?:data roaming|数据漫游)\s*[:：]\s*(on|off|开|关)", re.I),
}
_APN = re.compile(r"\bAPN\s*[:：]\s*([\w.]+)", re.I)
_SIM = re.compile(r"(?:SIM screen|SIM 卡页面)\s*[:：]\s*([^.。;；]+)", re.I)
_APP = re.compile(
    r"([A-Za-z]+)\s*(?:mobile data permission|的移动数据权限)\s*[:：]\s*([^.。;；]+)", re.I
)


def _lookup(table: dict[str, tuple[str, str]], text: str) -> str:
    text = text.strip().lower()
    for key, words in sorted(table.items(), key=lambda kv: -max(len(w) for w in kv[1])):
        if any(text == w.lower() for w in words):
            return key
    for key, words in sorted(table.items(), key=lambda kv: -max(len(w) for w in kv[1])):
        if any(w.lower() in text for w in words):
            return key
    return ""


def read_report(text: str) -> dict[str, str]:
    """What a customer's report of its phone says: signal, data connection, settings, APN,
    SIM status, an app's permission ("app:Maps" -> "allowed"). Keys absent when not said."""
    out: dict[str, str] = {}
    if m := _STATUS.search(text):
        out["signal"] = _lookup(SIGNALS, m.group(1))
    if m := _CONNECTION.search(text):
        out["data"] = _lookup(WORKING, m.group(1))
    for key, pattern in _SETTING.items():
        if m := pattern.search(text):
            out[key] = _lookup(ON_OFF, m.group(1))
    if m := _APN.search(text):
        out["apn"] = m.group(1).rstrip(".")
    if m := _SIM.search(text):
        out["sim"] = _lookup(SIM_STATES, m.group(1))
    for m in _APP.finditer(text):
        out[f"app:{m.group(1)}"] = _lookup(ALLOWED, m.group(2))
    return {k: v for k, v in out.items() if v}


# -- what the agent asks of the phone (read by the customer) ----------------------------------

CHECKS: dict[str, re.Pattern[str]] = {
    "check_status_bar": re.compile(r"status bar|状态栏", re.I),
    "check_network_settings": re.compile(r"network settings|网络设置", re.I),
    "check_sim": re.compile(r"SIM screen|SIM 卡页面", re.I),
}
APP_CHECK = re.compile(
    r"([A-Za-z]+) app's mobile[- ]data permission|([A-Za-z]+) 应用的移动数据权限", re.I
)
STEPS: list[tuple[str, re.Pattern[str]]] = [
    (
        "set_airplane_mode",
        re.compile(r"(?:turn|switch) (?:off airplane mode|airplane mode off)|关闭飞行模式", re.I),
    ),
    (
        "set_mobile_data",
        re.compile(r"(?:turn|switch) (?:on mobile data|mobile data on)|打开移动数据", re.I),
    ),
    (
        "set_data_roaming",
        re.compile(r"(?:turn|switch) (?:on data roaming|data roaming on)|打开数据漫游", re.I),
    ),
    ("install_carrier_settings", re.compile(r"install the carrier settings|安装运营商设置", re.I)),
    ("unlock_sim", re.compile(r"PUK (?:code )?(\d{8})|PUK 码\s*(\d{8})", re.I)),
    ("add_esim", re.compile(r"activation code (LPA-[0-9A-F]{8})|激活码\s*(LPA-[0-9A-F]{8})", re.I)),
    (
        "allow_app_mobile_data",
        re.compile(
            r"allow the ([A-Za-z]+) app to use mobile data|允许\s*([A-Za-z]+)\s*应用使用移动数据",
            re.I,
        ),
    ),
    ("restart_device", re.compile(r"restart your phone|重启手机", re.I)),
]
# A step is asked for only in a request to act ("Please ... on your phone"), not when the agent
# merely names a code.
DO_ON_PHONE = re.compile(r"on your phone|在手机上", re.I)
WORKS_AGAIN = re.compile(r"works again|可以正常使用了", re.I)
TRANSFER = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."
TRANSFERRED = re.compile(r"TRANSFERRED TO A HUMAN|转接人工|转人工", re.I)
REFUSAL_CUE = re.compile(
    r"\b(?:can't|cannot|can not|unable|not able|not possible)\b|无法|不能", re.I
)
DONE_CUE = re.compile(r"^\s*(?:done|all set)\b|已办好|已完成", re.I)

ENTITIES = (
    EntityPattern("line_id", re.compile(r"(?<![A-Za-z0-9])(L\d{6})(?!\d)")),
    EntityPattern("bill_id", re.compile(r"(?<![A-Za-z0-9])(B\d{6}-\d{2})(?!\d)")),
    EntityPattern("customer_id", re.compile(r"(?<![A-Za-z0-9])(C\d{6})(?!\d)")),
)
ACTIONS = {"resume": r"resum|恢复", "top_up": r"top.?up|充值", "roaming": r"roaming|漫游"}
READER = UtteranceReader(entities=ENTITIES, actions=ACTIONS)


def clean(text: str) -> str:
    return RETRACTED.sub(" ", text)
