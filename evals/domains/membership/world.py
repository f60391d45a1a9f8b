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

from dataclasses import dataclass

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
        return self.record(
            "members",
            member_id,
            f"No member with id {member_id!r}. Member ids look like M204518.",
        )

    def membership(self, membership_id: str) -> Membership:
        return self.record(
            "memberships",
            membership_id,
            f"No membership with id {membership_id!r}. Membership ids look like MS204518.",
        )

    def membership_of(self, member_id: str) -> Membership:
        self.member(member_id)
        for m in self.tables["memberships"].values():
            if m.member_id == member_id:
                return m
        raise ToolError(f"Member {member_id} has no membership.")

    def invoice(self, invoice_id: str) -> Invoice:
        return self.record(
            "invoices",
            invoice_id,
            f"No invoice with id {invoice_id!r}. Invoice ids look like INV-204518-05.",
        )

    def line(self, invoice: Invoice, item_id: str) -> InvoiceLine:
        for line in invoice.lines:
            if line.item_id == item_id:
                return line
        raise ToolError(f"Invoice {invoice.id} has no line {item_id!r}.")

    def invoices_of(self, member_id: str) -> list[Invoice]:
        return self.records_where("invoices", member_id=member_id)

    def entitlements_of(self, member_id: str) -> list[Entitlement]:
        return self.records_where("entitlements", member_id=member_id)

    def checkins_of(self, member_id: str) -> list[CheckIn]:
        return self.records_where("checkins", member_id=member_id)

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
