"""The domain-neutral entities: money, dates, times, durations, emails, phone numbers, zip
codes, street addresses, and identifiers named by a keyword ("order 12345", "invoice no.
INV-7", "预订号QX7T2L"). A domain adds its bare identifiers (#W1234567, MS204518) and its closed
lists (products, plans) with `EntityPattern`.

Boundaries are ASCII look-arounds, not \\b: in Chinese text an id or an amount sits right
against CJK characters, which \\b counts as word characters."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal, InvalidOperation

from evals.engine.understanding import money
from evals.engine.understanding.utterances.gate import Gate
from evals.engine.understanding.utterances.model import Entity, EntityPattern

WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15,
    "twenty": 20, "thirty": 30, "sixty": 60, "ninety": 90, "another": 1,
}  # fmt: skip
_ZH_DIGITS = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
ZH_NUM = "[零一二两三四五六七八九十百千万]+"
NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"


def zh_number(text: str) -> int:
    """一 → 1, 十五 → 15, 三十 → 30, 两百 → 200 (the forms amounts and durations use)."""
    total, current = 0, 0
    for ch in text:
        if ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        else:
            total += (current or 1) * _ZH_UNITS[ch]
            current = 0
    return total + current


def number(text: str) -> Decimal | None:
    raw = text.strip().lower()
    if raw in WORD_NUMBERS:
        return Decimal(WORD_NUMBERS[raw])
    if (raw and raw[0] in _ZH_DIGITS) or raw[:1] in _ZH_UNITS:
        return Decimal(zh_number(raw))
    try:
        return Decimal(raw.replace(",", ""))
    except InvalidOperation:
        return None


# -- money ---------------------------------------------------------------------------------

_SYMBOLS = {"us$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "￥": "CNY", "hk$": "HKD", "c$": "CAD", "a$": "AUD"}  # fmt: skip
_CODES = "USD|EUR|GBP|JPY|CNY|RMB|HKD|CAD|AUD|CHF|SGD|INR"
# Every other ISO code the payments rules know ("KWD", "BHD", "SEK"...), in capitals only:
# "try 3" or "all 2" are not money.
_MORE_CODES = "|".join(c for c in money.CODES if c not in _CODES.split("|"))
_WORDS = {"dollar": "USD", "buck": "USD", "euro": "EUR", "pound": "GBP", "yen": "JPY", "yuan": "CNY"}  # fmt: skip
_ZH_CURRENCY = {
    "美元": "USD", "美金": "USD", "欧元": "EUR", "英镑": "GBP", "日元": "JPY", "港币": "HKD",
    "港元": "HKD", "元": "CNY", "块": "CNY", "块钱": "CNY", "人民币": "CNY",
}  # fmt: skip
_MONEY = re.compile(
    rf"(?P<sym>US\$|HK\$|C\$|A\$|\$|€|£|¥|￥)\s?(?P<n1>{NUM})"
    rf"|(?<![A-Za-z])(?P<code1>{_CODES}|(?-i:{_MORE_CODES}))\s?(?P<n2>{NUM})(?![\d])"
    rf"|(?<![\w.,])(?P<n3>{NUM})\s?(?P<code2>{_CODES}|(?-i:{_MORE_CODES}))(?![A-Za-z])"
    rf"|(?<![\w.,])(?P<n4>{NUM})\s(?P<word>dollar|buck|euro|pound|yen|yuan)s?(?![A-Za-z])"
    rf"|(?:人民币\s?)?(?<![\d.,])(?P<n5>{NUM}|{ZH_NUM})\s?(?P<zh>美元|美金|欧元|英镑|日元|港币|港元|块钱|元|块|人民币)",
    re.IGNORECASE,
)


def _money(m: re.Match[str], zh: bool) -> str | None:
    g = m.groupdict()
    if g["sym"]:
        sym = g["sym"].lower()
        currency = ("CNY" if zh else "JPY") if sym == "¥" else _SYMBOLS[sym]
        raw = g["n1"]
    elif g["code1"]:
        currency, raw = g["code1"].upper(), g["n2"]
    elif g["code2"]:
        currency, raw = g["code2"].upper(), g["n3"]
    elif g["word"]:
        currency, raw = _WORDS[g["word"].lower()], g["n4"]
    else:
        currency, raw = _ZH_CURRENCY[g["zh"]], g["n5"]
    currency = "CNY" if currency == "RMB" else currency
    amount = number(raw)
    if amount is None:
        return None
    return f"{money.quantized(amount, currency)} {currency}"


# -- dates and times -----------------------------------------------------------------------

MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1,
    "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
    "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_FULL_MONTH = "January|February|March|April|June|July|August|September|October|November|December"
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_ZH_REL = {"今天": "today", "今日": "today", "明天": "tomorrow", "昨天": "yesterday", "后天": "day after tomorrow"}  # fmt: skip
_ZH_PREFIX = {"下": "next", "这": "this", "本": "this", "上": "last"}
_DATE = re.compile(
    r"(?<!\d)(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})(?!\d)"
    r"|(?<!\d)(?P<zy>\d{4})年(?P<zm>\d{1,2})月(?:(?P<zd>\d{1,2})[日号])?"
    r"|(?<![\d年])(?P<zm2>\d{1,2})月(?:(?P<zd2>\d{1,2})[日号]|份?)"
    rf"|(?<![A-Za-z])(?P<mon>{_MONTH})\.?\s+(?P<md>\d{{1,2}})(?:st|nd|rd|th)?(?![\d:])(?:,?\s+(?P<my>\d{{4}}))?"
    rf"|(?<!\d)(?P<dm>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>{_MONTH})(?:,?\s+(?P<my2>\d{{4}}))?"
    r"|(?<!\d)(?P<us_m>\d{1,2})/(?P<us_d>\d{1,2})/(?P<us_y>\d{4})(?!\d)"
    rf"|(?<![A-Za-z])(?-i:(?P<mon3>{_FULL_MONTH}))(?![A-Za-z])(?:\s+(?P<my3>\d{{4}}))?"
    r"|(?<![A-Za-z])(?-i:May)(?=\s+(?:invoice|bill|statement|charge|dues|payment|\d{4}))"
    r"|(?<=in |on |of )May(?![A-Za-z])"
    r"|(?<![A-Za-z])(?P<rel>today|tomorrow|yesterday|tonight)(?![A-Za-z])"
    r"|(?<![A-Za-z])(?:(?P<wp>next|this|last|coming)\s+)?(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?(?![A-Za-z])"
    r"|(?P<zrel>今天|今日|明天|昨天|后天)"
    r"|(?P<zwp>[下这本上])?(?:周|星期|礼拜)(?P<zwd>[一二三四五六日天])",
    re.IGNORECASE,
)


def _date(m: re.Match[str]) -> str:
    g = m.groupdict()

    def iso(y: str | None, mo: int, d: str | None) -> str:
        parts = ([y] if y else []) + [f"{mo:02d}"] + ([f"{int(d):02d}"] if d else [])
        return "-".join(parts)

    if g["y"]:
        return iso(g["y"], int(g["m"]), g["d"])
    if g["zy"]:
        return iso(g["zy"], int(g["zm"]), g["zd"])
    if g["zm2"]:
        return iso(None, int(g["zm2"]), g["zd2"])
    if g["mon"]:
        return iso(g["my"], MONTHS[g["mon"].lower()], g["md"])
    if g["mon2"]:
        return iso(g["my2"], MONTHS[g["mon2"].lower()], g["dm"])
    if g["us_m"]:
        return iso(g["us_y"], int(g["us_m"]), g["us_d"])
    if g["mon3"]:
        return iso(g["my3"], MONTHS[g["mon3"].lower()], None)
    if g["rel"]:
        return g["rel"].lower()
    if g["wd"]:
        day = g["wd"].lower()
        return f"{g['wp'].lower()} {day}" if g["wp"] else day
    if g["zrel"]:
        return _ZH_REL[g["zrel"]]
    if g["zwd"]:
        day = WEEKDAYS[_ZH_WEEKDAY[g["zwd"]]]
        return f"{_ZH_PREFIX[g['zwp']]} {day}" if g["zwp"] else day
    return "05"  # "May" as a month ("your May invoice", "in May")


_TIME = re.compile(
    r"(?P<zp>上午|早上|中午|下午|晚上|傍晚)?(?<![\d:])(?P<h>\d{1,2}):(?P<mi>\d{2})(?![\d:])\s*(?P<ap>a\.?m\.?|p\.?m\.?)?(?![A-Za-z])"
    r"|(?<![\d:.])(?P<h2>\d{1,2})\s*(?P<ap2>a\.?m\.?|p\.?m\.?)(?![A-Za-z])"
    rf"|(?P<zp2>上午|早上|中午|下午|晚上|傍晚)?(?P<zh>\d{{1,2}}|{ZH_NUM})[点點](?P<half>半|(?P<zmi>\d{{1,2}})分?)?",
    re.IGNORECASE,
)
_PM = ("下午", "晚上", "傍晚", "中午")


def _time(m: re.Match[str]) -> str:
    g = m.groupdict()
    if g["h"]:
        hour, minute, ap, zp = int(g["h"]), int(g["mi"]), (g["ap"] or "").lower(), g["zp"]
    elif g["h2"]:
        hour, minute, ap, zp = int(g["h2"]), 0, g["ap2"].lower(), None
    else:
        hour = int(number(g["zh"]) or 0)
        minute = 30 if g["half"] == "半" else int(g["zmi"] or 0)
        ap, zp = "", g["zp2"]
    if (ap.startswith("p") or zp in _PM) and hour < 12:
        hour += 12
    if ap.startswith("a") and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute:02d}"


_UNITS = {"second": "S", "sec": "S", "minute": "M", "min": "M", "hour": "H", "hr": "H", "day": "D", "week": "W", "month": "M", "year": "Y"}  # fmt: skip
_ZH_UNITS_DUR = {
    "秒": "S", "秒钟": "S", "分钟": "M", "小时": "H", "个小时": "H", "天": "D", "工作日": "D",
    "个工作日": "D", "周": "W", "星期": "W", "个星期": "W", "个月": "M", "年": "Y",
}  # fmt: skip
_WORDNUM = "|".join(WORD_NUMBERS)
_DURATION = re.compile(
    rf"(?<![\d.,A-Za-z])(?P<a>\d+|{_WORDNUM})(?:\s*(?:-|–|to)\s*(?P<b>\d+))?[\s-]*(?:business |working |calendar )?"
    r"(?P<unit>second|sec|minute|min|hour|hr|day|week|month|year)s?(?![A-Za-z])"
    rf"|(?<![\d.每下上这本几])(?P<za>\d+|{ZH_NUM})\s*(?:(?:-|–|到|至)\s*(?P<zb>\d+|{ZH_NUM}))?\s*(?P<zunit>个工作日|工作日|秒钟|秒|分钟|个小时|小时|天|周|个星期|星期|个月|年)",
    re.IGNORECASE,
)


def _duration(m: re.Match[str]) -> str | None:
    g = m.groupdict()
    if g["unit"]:
        a, b, unit = number(g["a"]), number(g["b"]) if g["b"] else None, _UNITS[g["unit"].lower()]
    else:
        a, b = number(g["za"]), number(g["zb"]) if g["zb"] else None
        unit = _ZH_UNITS_DUR[g["zunit"]]
    if a is None:
        return None
    time_part = (
        unit in "SH"
        or (unit == "M" and (g["unit"] or "").lower() in ("minute", "min"))
        or (g["zunit"] == "分钟")
    )
    prefix = "PT" if time_part else "P"
    first = f"{prefix}{int(a)}{unit}"
    return f"{first}..{prefix}{int(b)}{unit}" if b is not None else first


# -- contact details, addresses, keyword ids -----------------------------------------------

_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
)
_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[\s-]?)?\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}(?!\d)"
    r"|(?<![\w+])\+\d[\d\s-]{8,14}\d(?!\d)"
    r"|(?<![\dA-Za-z])1[3-9]\d{9}(?!\d)"
)
_STREET = "Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|Way|Court|Ct|Place|Pl|Terrace|Parkway|Square"
_ADDRESS = re.compile(
    rf"(?<![\w])(?P<line>\d{{1,5}}\s+(?:[A-Z][a-z]+\s+){{1,3}}(?:{_STREET}))(?![A-Za-z])\.?"
    r"(?:,\s*[A-Z][a-z]+(?:\s[A-Z][a-z]+)*(?:,\s*[A-Z]{2})?)?(?:,?\s*(?P<zip>\d{5})(?![\d-]))?"
    r"|(?P<zh>(?:[\u4e00-\u9fff]{2,3}省)?[\u4e00-\u9fff]{2}市(?:[\u4e00-\u9fff]{1,5}?[区县])?[\u4e00-\u9fff\d]{1,12}?(?:大道|路|街|道|巷)\d+号)"
)
_ZIP = re.compile(
    r"(?i:zip(?:\s*code)?|post(?:al)?\s*code|postcode)\W{0,3}(?:is\s+)?(?P<a>\d{5})(?![\d])"
    r"|(?<![\w#-])(?P<b>\d{5})(?=\s+(?:is\s+)?(?:the\s+|your\s+)?(?i:zip|postcode|postal code))"
    r"|(?:邮编|邮政编码)(?:是|为|：|:)?\s*(?P<c>\d{5,6})(?!\d)"
)
_ID_KINDS = {
    "order": "order_id", "invoice": "invoice_id", "booking": "booking_id",
    "reservation": "booking_id", "reference": "booking_id", "ref": "booking_id",
    "confirmation": "booking_id", "ticket": "ticket_id", "case": "ticket_id",
    "membership": "membership_id", "member": "member_id", "account": "account_id",
    "item": "item_id", "订单": "order_id", "发票": "invoice_id", "账单": "invoice_id",
    "预订": "booking_id", "预约": "booking_id", "工单": "ticket_id", "会员": "member_id",
}  # fmt: skip
_KEYWORD_ID = re.compile(
    r"(?i:(?<![A-Za-z])(?P<kw>order|invoice|booking|reservation|reference|ref|confirmation|ticket|case|membership|member|account|item)"
    r"(?:\s*(?:id|number|no\.?|code|reference|ref))?)[\s:#]*(?P<id>[A-Z0-9][A-Z0-9_-]{3,})(?![A-Za-z0-9])"
    r"|(?P<zkw>订单|发票|账单|预订|预约|工单|会员)(?:号|编号)?[：:\s#]*(?P<zid>[A-Za-z0-9][A-Za-z0-9_-]{3,})(?![A-Za-z0-9])"
)


class EntityExtractor:
    """Finds entities; where two overlap, the earlier then the longer wins, and at equal
    spans a domain pattern wins over a core one."""

    def __init__(self, extra: Sequence[EntityPattern] = ()) -> None:
        self.extra = tuple(extra)
        self._extra_gates = tuple(Gate(p.pattern) for p in self.extra)

    def find(self, text: str) -> list[Entity]:
        zh = any("\u4e00" <= ch <= "\u9fff" for ch in text)
        found: list[tuple[int, int, int, Entity]] = []
        for priority, (pattern, gate) in enumerate(zip(self.extra, self._extra_gates, strict=True)):
            for m in gate.finditer(text):
                start, end = m.span(m.lastindex) if m.lastindex else m.span()
                raw = text[start:end]
                if raw:
                    value = pattern.normalize(raw)
                    found.append(
                        (
                            start,
                            -(end - start),
                            priority,
                            Entity(pattern.kind, value, raw, start, end),
                        )
                    )
        core = len(self.extra)
        for entity in self._core(text, zh):
            found.append((entity.start, -(entity.end - entity.start), core, entity))
        found.sort(key=lambda t: (t[0], t[1], t[2]))
        kept: list[Entity] = []
        taken_until = -1
        for start, _neg, _prio, entity in found:
            if start >= taken_until:
                kept.append(entity)
                taken_until = entity.end
        return kept

    def _core(self, text: str, zh: bool) -> Iterator[Entity]:
        def emit(
            kind: str, m: re.Match[str], value: str | None, group: int | str = 0
        ) -> Iterator[Entity]:
            if value:
                start, end = m.span(group)
                yield Entity(kind, value, text[start:end], start, end)

        for m in _G_EMAIL.finditer(text):
            yield from emit("email", m, m.group().lower())
        for m in _G_PHONE.finditer(text):
            yield from emit("phone", m, re.sub(r"[^\d+]", "", m.group()))
        for m in _G_MONEY.finditer(text):
            yield from emit("money", m, _money(m, zh))
        for m in _G_ADDRESS.finditer(text):
            if m.group("zh"):
                yield from emit("address", m, m.group("zh"), "zh")
                continue
            yield from emit("address", m, " ".join(m.group("line").split()), "line")
            if m.group("zip"):
                yield from emit("zip", m, m.group("zip"), "zip")
        for m in _G_ZIP.finditer(text):
            group = "a" if m.group("a") else "b" if m.group("b") else "c"
            yield from emit("zip", m, m.group(group), group)
        for m in _G_KEYWORD_ID.finditer(text):
            yield from _keyword_id(m, text)
        for pattern, kind, convert in _VALUE_PATTERNS:
            for m in pattern.finditer(text):
                yield from emit(kind, m, convert(m))


def _keyword_id(m: re.Match[str], text: str) -> Iterator[Entity]:
    group = "id" if m.group("id") else "zid"
    token = m.group(group)
    kind = _ID_KINDS[(m.group("kw") or m.group("zkw")).lower()]
    reference = kind == "booking_id" and token.isupper() and 5 <= len(token) <= 8
    if not reference and not any(ch.isdigit() for ch in token):
        return
    start, end = m.span(group)
    yield Entity(kind, token.upper() if token.isascii() else token, text[start:end], start, end)


_VALUE_PATTERNS: tuple[tuple[Gate, str, Callable[[re.Match[str]], str | None]], ...] = (
    (Gate(_DATE), "date", _date),
    (Gate(_TIME), "time", _time),
    (Gate(_DURATION), "duration", _duration),
)
_G_EMAIL, _G_PHONE, _G_MONEY = Gate(_EMAIL), Gate(_PHONE), Gate(_MONEY)
_G_ADDRESS, _G_ZIP, _G_KEYWORD_ID = Gate(_ADDRESS), Gate(_ZIP), Gate(_KEYWORD_ID)
