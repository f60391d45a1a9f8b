"""The telecom population: customers generated from *profiles* (a line suspended for an unpaid
bill, data used up, abroad without roaming, a PUK-locked SIM...), three per profile in different
currencies. Each customer's phone is its own world: `build_world(seed)` is the carrier's records
(the same for every seed) plus the phone of customer number `seed` (1-based; 0 = no phone), so a
task's `world_seed` says whose phone the customer holds.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from evals.domains.telecom.world import (
    APN,
    DEVICE,
    MB_PER_GB,
    PHONE,
    PLANS,
    Bill,
    Customer,
    Device,
    Line,
    TelecomWorld,
)
from evals.engine.world import World


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    plan: str
    line: dict[str, Any]
    device: dict[str, Any]
    bill: str  # status of the current (June) bill: paid | open | overdue


PROFILES: tuple[Profile, ...] = (
    Profile(
        "unpaid",
        "plus",
        {"status": "suspended", "suspension_reason": "unpaid_bill"},
        {"needs_restart": True},
        "overdue",
    ),
    Profile(
        "unpaid-airplane",
        "plus",
        {"status": "suspended", "suspension_reason": "unpaid_bill"},
        {"needs_restart": True, "airplane_mode": True},
        "overdue",
    ),
    Profile("data-out", "basic", {"data_used_mb": 5 * MB_PER_GB}, {"mobile_data": False}, "paid"),
    Profile("abroad", "plus", {}, {"location": "abroad"}, "paid"),
    Profile("abroad-basic", "basic", {}, {"location": "abroad"}, "paid"),
    Profile(
        "abroad-app", "plus", {}, {"location": "abroad", "app_data": (("Maps", False),)}, "paid"
    ),
    Profile("puk", "plus", {}, {"sim_status": "puk_locked"}, "paid"),
    Profile("apn", "plus", {}, {"apn": "web.old"}, "paid"),
    Profile(
        "lost-sim", "plus", {"sim_changed_days_ago": 400}, {"sim_status": "not_detected"}, "open"
    ),
    Profile(
        "recent-sim", "plus", {"sim_changed_days_ago": 12}, {"sim_status": "not_detected"}, "paid"
    ),
    Profile(
        "fraud", "plus", {"status": "suspended", "suspension_reason": "fraud_review"}, {}, "paid"
    ),
    Profile("heavy", "plus", {"data_used_mb": 18 * MB_PER_GB}, {}, "open"),
    Profile("abroad-puk", "plus", {}, {"location": "abroad", "sim_status": "puk_locked"}, "paid"),
)
PER_PROFILE = 3
CURRENCIES = ("USD", "EUR", "GBP")
_FIRST = (
    "Ava",
    "Ben",
    "Chloe",
    "Daniel",
    "Emma",
    "Felix",
    "Grace",
    "Hugo",
    "Iris",
    "Jonas",
    "Kira",
    "Liam",
    "Maya",
    "Noah",
    "Olga",
    "Pablo",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
    "Umar",
    "Vera",
    "Wei",
    "Xenia",
    "Yusuf",
    "Zoe",
    "Anton",
    "Bella",
    "Carlos",
    "Dana",
    "Elif",
    "Farid",
    "Gina",
    "Hana",
    "Ivan",
    "Jade",
    "Kofi",
    "Lucia",
    "Marco",
)
_LAST = (
    "Adler",
    "Brandt",
    "Costa",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Hansen",
    "Ito",
    "Jensen",
    "Kowalski",
    "Larsen",
    "Moreau",
    "Novak",
    "Olsen",
    "Petrov",
    "Quist",
    "Rossi",
    "Silva",
    "Tanaka",
)


def customer_index(profile: str, n: int) -> int:
    """The 0-based index of the n-th customer of `profile` (the world seed is this + 1)."""
    return [p.name for p in PROFILES].index(profile) * PER_PROFILE + n


def _population() -> tuple[list[Customer], list[Line], list[Bill], list[Device]]:
    customers, lines, bills, devices = [], [], [], []
    for p_index, profile in enumerate(PROFILES):
        for n in range(PER_PROFILE):
            i = p_index * PER_PROFILE + n
            digits = f"{300101 + i * 7}"
            customer = _customer(i, digits)
            line = _line(profile, customer, i, digits)
            bills += _bills(profile, customer, digits)
            customers.append(customer)
            lines.append(line)
            devices.append(_device(profile, line))
    return customers, lines, bills, devices


def _customer(i: int, digits: str) -> Customer:
    first, last = _FIRST[i % len(_FIRST)], _LAST[(i * 3) % len(_LAST)]
    year, month, day = 1970 + (i * 7) % 35, 1 + (i * 5) % 12, 1 + (i * 11) % 28
    return Customer(
        id=f"C{digits}",
        first_name=first,
        last_name=last,
        email=f"{first.lower()}.{last.lower()}{i}@example.com",
        date_of_birth=f"{year}-{month:02d}-{day:02d}",
        phone_number=f"+1-555-{100 + i:04d}",
        currency=CURRENCIES[i % 3],
        card_last4=f"{(4242 + i * 37) % 10000:04d}",
    )


def _line(profile: Profile, customer: Customer, i: int, digits: str) -> Line:
    """The customer's one line on its profile's plan, then as the profile leaves it."""
    plan = PLANS[profile.plan]
    line = Line(
        id=f"L{digits}",
        customer_id=customer.id,
        phone_number=customer.phone_number,
        plan_id=plan.id,
        status="active",
        suspension_reason="",
        data_used_mb=(2 + i % 3) * MB_PER_GB,
        data_limit_mb=plan.data_gb * MB_PER_GB,
        roaming_enabled=False,
        iccid=f"8901{digits}0001",
        esim=False,
        sim_changed_days_ago=200 + i,
        puk=f"{(hash_digits(digits) % 90000000) + 10000000}",
        puk_disclosures=0,
        settings_pushes=0,
    )
    return replace(line, **profile.line)


def _bills(profile: Profile, customer: Customer, digits: str) -> list[Bill]:
    """April paid; May paid or overdue; June open when the profile has an open bill."""
    price = PLANS[profile.plan].price(customer.currency)
    paid_by = f"card {customer.card_last4}"
    bills = [
        Bill(
            f"B{digits}-04",
            customer.id,
            "2025-04",
            customer.currency,
            price,
            "paid",
            "2025-05-05",
            paid_by,
        ),
    ]
    may_status = "overdue" if profile.bill == "overdue" else "paid"
    bills.append(
        Bill(
            f"B{digits}-05",
            customer.id,
            "2025-05",
            customer.currency,
            price,
            may_status,
            "2025-06-05",
            paid_by if may_status == "paid" else "",
        )
    )
    if profile.bill == "open":
        bills.append(
            Bill(
                f"B{digits}-06",
                customer.id,
                "2025-06",
                customer.currency,
                price,
                "open",
                "2025-07-05",
            )
        )
    return bills


def _device(profile: Profile, line: Line) -> Device:
    """The customer's phone, working, then as the profile breaks it."""
    device = Device(
        line_id=line.id,
        airplane_mode=False,
        mobile_data=True,
        data_roaming=False,
        location="home",
        sim_status="ready",
        iccid=line.iccid,
        pin="1234",
        apn=APN,
        needs_restart=False,
        app_data=(("Maps", True), ("Browser", True)),
    )
    device = replace(device, **profile.device)
    if profile.device.get("app_data"):
        device = replace(device, app_data=(*device.app_data, ("Browser", True)))
    return device


def hash_digits(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)


@cache
def _pristine(seed: int) -> TelecomWorld:
    customers, lines, bills, devices = _population()
    tables: dict[str, dict[str, Any]] = {
        "customers": {c.id: c for c in customers},
        "lines": {x.id: x for x in lines},
        "bills": {b.id: b for b in bills},
        DEVICE: {},
    }
    if 1 <= seed <= len(devices):
        tables[DEVICE][PHONE] = devices[seed - 1]
    return TelecomWorld(tables)


def build_world(seed: int) -> World:
    """The carrier's records and the phone of customer number `seed` (cached: the engine only
    ever uses copies)."""
    return _pristine(seed)
