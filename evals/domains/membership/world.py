"""The membership world: members of a gym club, their plans, memberships, invoices in several
currencies, visit logs (check-ins) and paid entitlements, built from a seed.

Members are generated from a handful of *profiles* (a committed member with a duplicate charge,
a member past their commitment with a class pack, a past-due member, a frozen member...), three
members per profile in different currencies, so every task recipe finds a member whose
situation it needs and each identity variant talks to a different member.

Check-ins and entitlements are kept apart on purpose: a check-in is a log line written when a
member badges in; only an entitlement row (from the plan or a paid pack) gives a right to a
class, a guest pass or a personal-training session.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from evals.engine.errors import ToolError
from evals.engine.world import World
from payments_sandbox.domain import Money

TODAY = "2025-06-15"
BILLING_CYCLE_DAYS = 30
MAX_FREEZES_PER_YEAR = 2
MAX_FREEZE_MONTHS = 3
MAX_LATE_FEE_WAIVERS_12M = 1

# Named humans the agent hands cases to, by category (the backoffice roster of the sandbox).
ROSTER: dict[str, str] = {
    "dispute": "Nadia Brooks (billing disputes)",
    "out_of_policy": "Tom Becker (membership supervisor)",
    "fraud": "Priya Raman (fraud desk)",
    "other": "Leo Marin (member services)",
}


@dataclass(frozen=True, slots=True)
class Plan:
    id: str
    name: str
    rank: int
    prices: tuple[tuple[str, int], ...]  # (currency, monthly price in minor units)
    includes: str

    def price(self, currency: str) -> int:
        return dict(self.prices)[currency]


PLANS: dict[str, Plan] = {
    "basic": Plan(
        "basic",
        "Basic",
        1,
        (("USD", 2999), ("EUR", 2799), ("GBP", 2499), ("JPY", 3980)),
        "gym floor access",
    ),
    "plus": Plan(
        "plus",
        "Plus",
        2,
        (("USD", 4999), ("EUR", 4599), ("GBP", 3999), ("JPY", 6480)),
        "gym floor, 4 guest passes a month",
    ),
    "premium": Plan(
        "premium",
        "Premium",
        3,
        (("USD", 7999), ("EUR", 7499), ("GBP", 6499), ("JPY", 9980)),
        "gym floor, 4 guest passes and 1 personal-training session a month",
    ),
}
FREEZE_FEE: dict[str, int] = {"USD": 900, "EUR": 800, "GBP": 700, "JPY": 1000}
LATE_FEE: dict[str, int] = {"USD": 1500, "EUR": 1200, "GBP": 1000, "JPY": 1500}
DROP_IN_PRICE: dict[str, int] = {"USD": 1800, "EUR": 1600, "GBP": 1400, "JPY": 2000}
CLASS_PACK_PRICE: dict[str, int] = {"USD": 12900, "EUR": 11900, "GBP": 9900, "JPY": 14000}
PT_PACK_PRICE: dict[str, int] = {"USD": 24500, "EUR": 22500, "GBP": 19500, "JPY": 27000}


@dataclass(frozen=True, slots=True)
class Member:
    id: str  # the member number printed on the card, e.g. "M204518"
    first_name: str
    last_name: str
    email: str
    date_of_birth: str  # ISO date
    home_club: str


@dataclass(frozen=True, slots=True)
class Membership:
    id: str
    member_id: str
    plan_id: str
    status: str  # active | frozen | cancelled | past_due
    currency: str
    monthly_fee: int
    started: str
    commitment_end: str
    commitment_months_left: int
    days_left_in_cycle: int
    freezes_this_year: int
    frozen_months: int
    late_fee_waivers_12m: int
    account_credit: int


@dataclass(frozen=True, slots=True)
class InvoiceLine:
    item_id: str
    kind: str  # dues | class_pack | pt_pack | class_drop_in | late_fee | freeze_fee |
    # cancellation_fee | proration
    description: str
    amount: int
    list_price: int
    duplicate_of: str = ""
    waived: bool = False


@dataclass(frozen=True, slots=True)
class Invoice:
    id: str
    member_id: str
    period: str
    currency: str
    status: str  # paid | open | overdue
    lines: tuple[InvoiceLine, ...]
    paid: int
    refunded: int
    due_date: str

    @property
    def total(self) -> int:
        return sum(line.amount for line in self.lines if not line.waived)


@dataclass(frozen=True, slots=True)
class Entitlement:
    """A paid right: from the plan ("plan") or a bought pack ("pack", with its invoice)."""

    id: str
    member_id: str
    kind: str  # classes | guest_pass | pt_session
    source: str
    total: int
    used: int
    paid_invoice: str
    expires: str

    @property
    def remaining(self) -> int:
        return self.total - self.used


@dataclass(frozen=True, slots=True)
class CheckIn:
    """A badge scan at a club door or studio: a visit log, never a right to anything."""

    id: str
    member_id: str
    date: str
    club: str
    area: str  # gym floor | studio class | guest entry | pt studio | pool


@dataclass(frozen=True, slots=True)
class Note:
    """A record on the member's file. `text` is free text for humans, not compared."""

    member_id: str
    topic: str
    reference: str
    text: str

    canonical_exclude = frozenset({"text"})


class MembershipWorld(World):
    def member(self, member_id: str) -> Member:
        try:
            return self.tables["members"][member_id]
        except KeyError:
            raise ToolError(
                f"No member with id {member_id!r}. Member ids look like M204518."
            ) from None

    def membership(self, membership_id: str) -> Membership:
        try:
            return self.tables["memberships"][membership_id]
        except KeyError:
            raise ToolError(
                f"No membership with id {membership_id!r}. Membership ids look like MS204518."
            ) from None

    def membership_of(self, member_id: str) -> Membership:
        self.member(member_id)
        for m in self.tables["memberships"].values():
            if m.member_id == member_id:
                return m
        raise ToolError(f"Member {member_id} has no membership.")

    def invoice(self, invoice_id: str) -> Invoice:
        try:
            return self.tables["invoices"][invoice_id]
        except KeyError:
            raise ToolError(
                f"No invoice with id {invoice_id!r}. Invoice ids look like INV-204518-05."
            ) from None

    def line(self, invoice: Invoice, item_id: str) -> InvoiceLine:
        for line in invoice.lines:
            if line.item_id == item_id:
                return line
        raise ToolError(f"Invoice {invoice.id} has no line {item_id!r}.")

    def invoices_of(self, member_id: str) -> list[Invoice]:
        return [i for i in self.tables["invoices"].values() if i.member_id == member_id]

    def entitlements_of(self, member_id: str) -> list[Entitlement]:
        return [e for e in self.tables["entitlements"].values() if e.member_id == member_id]

    def checkins_of(self, member_id: str) -> list[CheckIn]:
        return [c for c in self.tables["checkins"].values() if c.member_id == member_id]

    def put(self, table: str, key: str, record: object) -> None:
        self.tables[table][key] = record

    def next_invoice_id(self, member_id: str) -> str:
        return f"INV-{member_id[1:]}-A{len(self.invoices_of(member_id)) + 1:02d}"


# -- fees and adjustments: pure arithmetic in minor units, used by tools, rules and tasks --


def proration(old_fee: int, new_fee: int, days_left: int) -> int:
    """The pro-rated difference for the rest of the billing cycle, rounded toward zero to the
    minor unit: positive is charged now (upgrade), negative is credited (downgrade)."""
    diff = new_fee - old_fee
    magnitude = abs(diff) * days_left // BILLING_CYCLE_DAYS
    return magnitude if diff >= 0 else -magnitude


def freeze_fee(currency: str, months: int) -> int:
    return FREEZE_FEE[currency] * months


def cancellation_fee(membership: Membership) -> int:
    """Inside the commitment: half of the dues left in it (rounded down); after it: nothing."""
    return membership.commitment_months_left * membership.monthly_fee // 2


def has_paid_class_entitlement(world: MembershipWorld, member_id: str) -> bool:
    """Whether a paid class entitlement with sessions left covers a class. Check-ins are
    deliberately not consulted: they log visits, they do not pay for anything."""
    return any(e.kind == "classes" and e.remaining > 0 for e in world.entitlements_of(member_id))


def line_overcharge(world: MembershipWorld, invoice: Invoice, line: InvoiceLine) -> int:
    """How much of a line was charged in error (minor units): a duplicate line entirely, a
    class drop-in while a paid class pack had sessions left entirely, otherwise the part above
    the list price."""
    if line.waived:
        return 0
    if line.duplicate_of:
        return line.amount
    if line.kind == "class_drop_in" and has_paid_class_entitlement(world, invoice.member_id):
        return line.amount
    return max(0, line.amount - line.list_price)


def money_text(minor: int, currency: str) -> str:
    return Money(minor, currency).to_decimal_string()


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
        inv_id = f"INV-{digits}-{month}"
        lines = [
            InvoiceLine(
                f"L{rng.randrange(10000, 99999)}",
                "dues",
                f"{PLANS[p.plan_id].name} monthly dues 2025-{month}",
                fee,
                fee,
            )
        ]
        if month == "04" and p.class_pack_left:
            price = CLASS_PACK_PRICE[cur]
            lines.append(
                InvoiceLine(
                    f"L{rng.randrange(10000, 99999)}", "class_pack", "10-class pack", price, price
                )
            )
        if month == "04" and p.pt_pack[0] and p.plan_id != "premium":
            price = PT_PACK_PRICE[cur]
            lines.append(
                InvoiceLine(
                    f"L{rng.randrange(10000, 99999)}",
                    "pt_pack",
                    "5-session personal-training pack",
                    price,
                    price,
                )
            )
        if month == "06" and p.duplicate_dues:
            lines.append(
                InvoiceLine(
                    f"L{rng.randrange(10000, 99999)}",
                    "dues",
                    f"{PLANS[p.plan_id].name} monthly dues 2025-{month}",
                    fee,
                    fee,
                    duplicate_of=lines[0].item_id,
                )
            )
        if month == "05" and p.class_drop_in:
            price = DROP_IN_PRICE[cur]
            lines.append(
                InvoiceLine(
                    f"L{rng.randrange(10000, 99999)}",
                    "class_drop_in",
                    "Studio class drop-in (spin) 2025-05-20",
                    price,
                    price,
                )
            )
        status = "paid"
        if month == "06" and p.overdue_with_late_fee:
            status = "overdue"
            lines.append(
                InvoiceLine(
                    f"L{rng.randrange(10000, 99999)}",
                    "late_fee",
                    "Late payment fee",
                    LATE_FEE[cur],
                    LATE_FEE[cur],
                )
            )
        total = sum(line.amount for line in lines)
        out.append(
            Invoice(
                inv_id,
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
