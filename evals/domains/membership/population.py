"""The seeded population of the membership world: member profiles (the situations task recipes
need), three members per profile in different currencies, their invoices, entitlements and
check-ins. `build_world(seed)` is the domain's pristine-world factory."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from evals.domains.membership.world import (
    CLASS_PACK_PRICE,
    DROP_IN_PRICE,
    LATE_FEE,
    PLANS,
    PT_PACK_PRICE,
    CheckIn,
    Entitlement,
    Invoice,
    InvoiceLine,
    Member,
    Membership,
    MembershipWorld,
)

# -- generation ---------------------------------------------------------------------------

FIRST = [
    "Ava",
    "Ben",
    "Chloe",
    "Diego",
    "Elena",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemi",
    "Luca",
    "Maya",
    "Nils",
    "Olga",
    "Pablo",
    "Quinn",
    "Rosa",
    "Sami",
    "Tara",
    "Umar",
    "Vera",
    "Wen",
    "Yara",
]
LAST = [
    "Adler",
    "Bauer",
    "Costa",
    "Dubois",
    "Evans",
    "Fischer",
    "Garcia",
    "Horvat",
    "Ito",
    "Jensen",
    "Khan",
    "Larsen",
    "Meyer",
    "Novak",
    "Ortiz",
    "Petrov",
    "Quint",
    "Rossi",
    "Sato",
    "Turner",
    "Ueda",
    "Vidal",
    "Walsh",
    "Young",
]
CLUBS = ["Riverside", "Old Town", "Harbour", "Northgate"]
CURRENCIES = ["USD", "EUR", "GBP", "JPY"]


@dataclass(frozen=True, slots=True)
class Profile:
    """A member situation the task recipes build on."""

    name: str
    plan_id: str
    status: str
    commitment_months_left: int
    days_left_in_cycle: int
    freezes_this_year: int
    late_fee_waivers_12m: int
    duplicate_dues: bool = False
    class_drop_in: bool = False
    class_pack_left: int = 0
    guest_passes: tuple[int, int] = (0, 0)  # (total, used) this month
    pt_pack: tuple[int, int] = (0, 0)
    overdue_with_late_fee: bool = False
    frozen_months: int = 0
    # check-ins by area: the trap data (more visits than paid rights)
    checkins: tuple[tuple[str, int], ...] = (("gym floor", 6),)


PROFILES: tuple[Profile, ...] = (
    Profile(
        "committed",
        "plus",
        "active",
        6,
        18,
        0,
        0,
        duplicate_dues=True,
        guest_passes=(4, 2),
        pt_pack=(5, 2),
        checkins=(("gym floor", 8), ("guest entry", 3), ("pt studio", 4), ("studio class", 2)),
    ),
    Profile(
        "free",
        "premium",
        "active",
        0,
        12,
        1,
        0,
        class_drop_in=True,
        class_pack_left=4,
        guest_passes=(4, 1),
        pt_pack=(1, 0),
        checkins=(("gym floor", 5), ("studio class", 7), ("pool", 2)),
    ),
    Profile(
        "late",
        "basic",
        "past_due",
        2,
        9,
        0,
        0,
        overdue_with_late_fee=True,
        checkins=(("gym floor", 3),),
    ),
    Profile(
        "late-waived",
        "plus",
        "past_due",
        0,
        21,
        0,
        1,
        overdue_with_late_fee=True,
        guest_passes=(4, 0),
        checkins=(("gym floor", 4), ("guest entry", 1)),
    ),
    Profile(
        "frozen",
        "plus",
        "frozen",
        4,
        15,
        1,
        0,
        frozen_months=2,
        guest_passes=(4, 0),
        checkins=(("gym floor", 2),),
    ),
    Profile(
        "trap",
        "basic",
        "active",
        0,
        24,
        2,
        0,
        class_drop_in=True,
        checkins=(("gym floor", 4), ("studio class", 5)),
    ),
)
MEMBERS_PER_PROFILE = 3


def _member(rng: random.Random, used: set[str], index: int) -> Member:
    while True:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        if f"{first} {last}" not in used:
            used.add(f"{first} {last}")
            break
    number = f"M{rng.randrange(200000, 999999)}"
    dob = f"{rng.randrange(1962, 2004)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
    email = f"{first.lower()}.{last.lower()}{index}@example.com"
    return Member(number, first, last, email, dob, rng.choice(CLUBS))


def _invoices(rng: random.Random, m: Member, p: Profile, fee: int, cur: str) -> list[Invoice]:
    out = []
    digits = m.id[1:]
    for month in ("04", "05", "06"):
        lines = _invoice_lines(rng, p, month, fee, cur)
        status = "overdue" if month == "06" and p.overdue_with_late_fee else "paid"
        total = sum(line.amount for line in lines)
        out.append(
            Invoice(
                f"INV-{digits}-{month}",
                m.id,
                f"2025-{month}",
                cur,
                status,
                tuple(lines),
                total if status == "paid" else 0,
                0,
                f"2025-{month}-05",
            )
        )
    return out


def _invoice_lines(
    rng: random.Random, p: Profile, month: str, fee: int, cur: str
) -> list[InvoiceLine]:
    """A month's lines, each drawing its item id from `rng` in this order: the dues, then what
    the profile bought or owes that month (packs in April, a drop-in in May, a duplicate
    charge and a late fee in June)."""
    dues = f"{PLANS[p.plan_id].name} monthly dues 2025-{month}"
    lines = [_line(rng, "dues", dues, fee)]
    if month == "04" and p.class_pack_left:
        lines.append(_line(rng, "class_pack", "10-class pack", CLASS_PACK_PRICE[cur]))
    if month == "04" and p.pt_pack[0] and p.plan_id != "premium":
        lines.append(_line(rng, "pt_pack", "5-session personal-training pack", PT_PACK_PRICE[cur]))
    if month == "06" and p.duplicate_dues:
        lines.append(_line(rng, "dues", dues, fee, duplicate_of=lines[0].item_id))
    if month == "05" and p.class_drop_in:
        drop_in = "Studio class drop-in (spin) 2025-05-20"
        lines.append(_line(rng, "class_drop_in", drop_in, DROP_IN_PRICE[cur]))
    if month == "06" and p.overdue_with_late_fee:
        lines.append(_line(rng, "late_fee", "Late payment fee", LATE_FEE[cur]))
    return lines


def _line(
    rng: random.Random, kind: str, description: str, price: int, *, duplicate_of: str = ""
) -> InvoiceLine:
    """A line charged at its list price."""
    item_id = f"L{rng.randrange(10000, 99999)}"
    return InvoiceLine(item_id, kind, description, price, price, duplicate_of=duplicate_of)


def _entitlements(
    rng: random.Random, m: Member, p: Profile, invoices: list[Invoice]
) -> list[Entitlement]:
    out = []
    if p.class_pack_left:
        out.append(
            Entitlement(
                f"E{rng.randrange(10000, 99999)}",
                m.id,
                "classes",
                "pack",
                10,
                10 - p.class_pack_left,
                invoices[0].id,
                "2025-12-31",
            )
        )
    if p.guest_passes[0]:
        total, used = p.guest_passes
        out.append(
            Entitlement(
                f"E{rng.randrange(10000, 99999)}",
                m.id,
                "guest_pass",
                "plan",
                total,
                used,
                "",
                "2025-06-30",
            )
        )
    if p.pt_pack[0]:
        total, used = p.pt_pack
        source = "plan" if p.plan_id == "premium" else "pack"
        out.append(
            Entitlement(
                f"E{rng.randrange(10000, 99999)}",
                m.id,
                "pt_session",
                source,
                total,
                used,
                "" if source == "plan" else invoices[0].id,
                "2025-09-30",
            )
        )
    return out


def _checkins(rng: random.Random, m: Member, p: Profile) -> list[CheckIn]:
    out = []
    for area, count in p.checkins:
        for _ in range(count):
            day = rng.randrange(1, 15)
            out.append(
                CheckIn(
                    f"C{rng.randrange(100000, 999999)}",
                    m.id,
                    f"2025-06-{day:02d}",
                    m.home_club,
                    area,
                )
            )
    out.sort(key=lambda c: (c.date, c.id))
    return out


def _generate(seed: int) -> MembershipWorld:
    rng = random.Random(seed)
    members: dict[str, Member] = {}
    memberships: dict[str, Membership] = {}
    invoices: dict[str, Invoice] = {}
    entitlements: dict[str, Entitlement] = {}
    checkins: dict[str, CheckIn] = {}
    used: set[str] = set()
    index = 0
    for p_index, p in enumerate(PROFILES):
        for k in range(MEMBERS_PER_PROFILE):
            m = _member(rng, used, index)
            while m.id in members:
                m = _member(rng, used, index)
            index += 1
            cur = CURRENCIES[(p_index + k) % len(CURRENCIES)]
            fee = PLANS[p.plan_id].price(cur)
            left = p.commitment_months_left
            end_month = 6 + left
            commitment_end = (
                f"{2025 + (end_month - 1) // 12}-{(end_month - 1) % 12 + 1:02d}-30"
                if left
                else "2025-01-31"
            )
            members[m.id] = m
            memberships[f"MS{m.id[1:]}"] = Membership(
                f"MS{m.id[1:]}",
                m.id,
                p.plan_id,
                p.status,
                cur,
                fee,
                "2024-02-01" if not left else "2024-12-01",
                commitment_end,
                left,
                p.days_left_in_cycle,
                p.freezes_this_year,
                p.frozen_months,
                p.late_fee_waivers_12m,
                0,
            )
            member_invoices = _invoices(rng, m, p, fee, cur)
            invoices.update((i.id, i) for i in member_invoices)
            entitlements.update((e.id, e) for e in _entitlements(rng, m, p, member_invoices))
            checkins.update((c.id, c) for c in _checkins(rng, m, p))
    return MembershipWorld(
        {
            "members": members,
            "memberships": memberships,
            "invoices": invoices,
            "entitlements": entitlements,
            "checkins": checkins,
            "notes": {},
        }
    )


@lru_cache(maxsize=8)
def build_world(seed: int) -> MembershipWorld:
    """The pristine world for `seed` (cached: the engine only ever uses copies of it)."""
    return _generate(seed)
