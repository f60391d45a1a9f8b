"""The billing world: customers of a payment service, their cards and the charges made on
them in several currencies (0, 2 and 3 decimals), refunds already paid, refund requests still
waiting for approval from an earlier contact, chargebacks filed with the bank, and each
account's mode (live or sandbox), built from a seed.

Every customer holds the same set of charges, one per *role* (a fresh charge, a second one, a
charge partly refunded, one fully refunded, one past the dispute window, one under a
chargeback, one with a refund request already pending, one the customer does not recognise,
one large enough to need the senior approver), so every task recipe finds the charge it needs
and each identity variant talks to a different customer in a different currency.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from evals.engine.world import RefundRequest, World
from payments_sandbox.domain import Money, RefundState

TODAY = date(2025, 9, 30)
DISPUTE_WINDOW_DAYS = 120
MODES = ("live", "sandbox")

# The refund approvers: a refund up to the desk's limit goes to the refunds desk, a larger one
# to the finance controller. The limits are in minor units of the charge's currency.
DESK_APPROVER = "Nadia Brooks"
SENIOR_APPROVER = "Tom Becker"
APPROVERS: dict[str, tuple[str, str]] = {
    DESK_APPROVER: ("refunds desk", "2 business days"),
    SENIOR_APPROVER: ("finance controller", "5 business days"),
}
DESK_LIMIT: dict[str, int] = {
    "JPY": 50000,
    "EUR": 50000,
    "USD": 50000,
    "KWD": 150000,
    "BHD": 150000,
}

# Named humans the agent hands a case to, by category.
ROSTER: dict[str, str] = {
    "chargeback": "Greta Lind (chargeback team)",
    "fraud": "Priya Raman (fraud team)",
    "other": "Leo Marin (customer care)",
}

CURRENCIES = ("JPY", "EUR", "USD", "KWD", "BHD")
CUSTOMERS_PER_CURRENCY = 3

FIRST = (
    "Ava",
    "Kenji",
    "Lena",
    "Omar",
    "Sara",
    "Marco",
    "Yuki",
    "Noor",
    "Paul",
    "Ines",
    "Hana",
    "Tariq",
    "Emma",
    "Luis",
    "Mei",
    "Jonas",
    "Rania",
    "Theo",
    "Aiko",
    "Carl",
)
LAST = (
    "Adler",
    "Sato",
    "Weber",
    "Haddad",
    "Novak",
    "Rossi",
    "Ito",
    "Khalil",
    "Meyer",
    "Lopez",
    "Kim",
    "Aziz",
    "Berg",
    "Costa",
    "Chen",
    "Fischer",
    "Saleh",
    "Martin",
)


@dataclass(frozen=True, slots=True)
class Role:
    """A kind of charge every customer has: its merchant descriptor, how long ago it was
    made, its amount in minor units per currency, and its history."""

    name: str
    merchant: str
    days_ago: int
    amounts: tuple[tuple[str, int], ...]
    refunded_share: tuple[int, int] = (0, 1)  # refunded = amount * a // b
    chargeback: bool = False
    pending_share: tuple[int, int] = (0, 1)  # an earlier contact's pending refund request


ROLES: tuple[Role, ...] = (
    Role(
        "main",
        "NORDIC*RAIL",
        12,
        (("JPY", 12800), ("EUR", 8450), ("USD", 12999), ("KWD", 45750), ("BHD", 38500)),
    ),
    Role(
        "second",
        "CITYCAB*RIDE",
        33,
        (("JPY", 4600), ("EUR", 3120), ("USD", 2875), ("KWD", 9250), ("BHD", 7125)),
    ),
    Role(
        "partly",
        "BOOKNOOK*ONLINE",
        25,
        (("JPY", 9000), ("EUR", 6000), ("USD", 8000), ("KWD", 24000), ("BHD", 20000)),
        refunded_share=(1, 4),
    ),
    Role(
        "full",
        "SUNNY*HOTELS",
        40,
        (("JPY", 21000), ("EUR", 15500), ("USD", 17900), ("KWD", 52500), ("BHD", 61250)),
        refunded_share=(1, 1),
    ),
    Role(
        "old",
        "GYMPRO*MEMBER",
        200,
        (("JPY", 7800), ("EUR", 4999), ("USD", 5999), ("KWD", 18000), ("BHD", 16500)),
    ),
    Role(
        "chargeback",
        "TECHMART*STORE",
        50,
        (("JPY", 32000), ("EUR", 24900), ("USD", 27500), ("KWD", 82000), ("BHD", 75500)),
        chargeback=True,
    ),
    Role(
        "pending",
        "FRESHBOX*MEALS",
        18,
        (("JPY", 5400), ("EUR", 3990), ("USD", 4590), ("KWD", 13500), ("BHD", 12000)),
        pending_share=(1, 1),
    ),
    Role(
        "unknown",
        "XQZ*DIGITAL",
        6,
        (("JPY", 9900), ("EUR", 7700), ("USD", 8800), ("KWD", 26000), ("BHD", 23000)),
    ),
    Role(
        "big",
        "AURORA*TRAVEL",
        45,
        (("JPY", 186000), ("EUR", 124000), ("USD", 139900), ("KWD", 412500), ("BHD", 398000)),
    ),
)
ROLE_NAMES = tuple(r.name for r in ROLES)


@dataclass(frozen=True, slots=True)
class Customer:
    id: str  # e.g. "C40213"
    first_name: str
    last_name: str
    email: str
    postcode: str
    mode: str  # the account's mode: "live" or "sandbox" (a merchant's test account)


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    customer_id: str
    brand: str
    last4: str


@dataclass(frozen=True, slots=True)
class Charge:
    id: str  # e.g. "CH-402131"
    customer_id: str
    card_id: str
    date: str  # ISO date
    merchant: str  # the descriptor on the statement
    amount: int  # minor units
    currency: str
    refunded: int  # refunds already paid, minor units
    chargeback: str  # "" or "filed": the customer's bank opened a chargeback
    mode: str  # the account's mode when it was made

    @property
    def days_ago(self) -> int:
        return (TODAY - date.fromisoformat(self.date)).days


@dataclass(frozen=True, slots=True)
class RefundRoute:
    """Who decides a refund request: the approver named on it, and the mode it runs in. One
    row per request; the request itself is `world.backoffice.refund_requests`."""

    charge_id: str
    approver: str
    mode: str


@dataclass(frozen=True, slots=True)
class Rehearsal:
    """A sandbox rehearsal the agent ran in this conversation (not part of the state)."""

    charge_id: str
    amount: int
    currency: str
    mode: str


class BillingWorld(World):
    rehearsals: list[Rehearsal]

    def copy(self) -> BillingWorld:
        clone = super().copy()
        assert isinstance(clone, BillingWorld)
        clone.rehearsals = []  # a rehearsal belongs to one conversation
        return clone

    def customer(self, customer_id: str) -> Customer:
        return self.record(
            "customers",
            customer_id,
            f"No customer with id {customer_id!r}. Customer ids look like C40213.",
        )

    def charge(self, charge_id: str) -> Charge:
        return self.record(
            "charges",
            str(charge_id).strip().upper(),
            f"No charge with id {charge_id!r}. Charge ids look like CH-402131.",
        )

    def card(self, card_id: str) -> Card:
        return self.tables["cards"][card_id]

    def cards_of(self, customer_id: str) -> list[Card]:
        return self.records_where("cards", customer_id=customer_id)

    def charges_of(self, customer_id: str) -> list[Charge]:
        return self.records_where("charges", customer_id=customer_id)

    def put(self, table: str, key: str, record: object) -> None:
        self.tables[table][key] = record

    def pending_requests(self, charge_id: str) -> list[RefundRequest]:
        return [
            r
            for r in self.backoffice.refund_requests
            if r.reference.split("/", 1)[0] == charge_id
            and r.state in (RefundState.REQUESTED.value, RefundState.PENDING_APPROVAL.value)
        ]

    def route(self, reference: str) -> RefundRoute | None:
        return self.tables["refund_routes"].get(reference)


def approver_for(amount: Money) -> str:
    """The approver a refund of `amount` goes to: the refunds desk up to its limit, the
    finance controller above it."""
    return DESK_APPROVER if amount.amount <= DESK_LIMIT[amount.currency] else SENIOR_APPROVER


def money_text(minor: int, currency: str) -> str:
    return Money(minor, currency).to_decimal_string()


def _iso(days_ago: int) -> str:
    return (TODAY - timedelta(days=days_ago)).isoformat()


@cache
def build_world(seed: int) -> BillingWorld:
    """Five currencies × three live customers, then three sandbox customers (EUR, JPY, KWD);
    names, ids and card digits drawn from `seed`, amounts varied by customer."""
    rng = random.Random(seed)
    firsts = rng.sample(FIRST, len(FIRST))
    lasts = rng.sample(LAST, len(LAST))
    numbers = rng.sample(range(10000, 99999), 40)
    last4s = rng.sample(range(1000, 9999), 80)
    customers: dict[str, Customer] = {}
    cards: dict[str, Card] = {}
    charges: dict[str, Charge] = {}
    requests: list[RefundRequest] = []
    routes: dict[str, RefundRoute] = {}
    plan = [(cur, "live") for cur in CURRENCIES for _ in range(CUSTOMERS_PER_CURRENCY)]
    plan += [("EUR", "sandbox"), ("JPY", "sandbox"), ("KWD", "sandbox")]
    for i, (currency, mode) in enumerate(plan):
        cid = f"C{numbers[i]}"
        first, last = firsts[i % len(firsts)], lasts[i % len(lasts)]
        postcode = f"{rng.randint(10, 99)}{rng.randint(100, 999)}"
        customers[cid] = Customer(
            cid, first, last, f"{first}.{last}{i}@example.com".lower(), postcode, mode
        )
        own = [
            Card(f"K{numbers[i]}-1", cid, "Visa", str(last4s[2 * i])),
            Card(f"K{numbers[i]}-2", cid, "Mastercard", str(last4s[2 * i + 1])),
        ]
        for card in own:
            cards[card.id] = card
        bump = (i % CUSTOMERS_PER_CURRENCY) * (1 if currency == "JPY" else 10) * 10
        for n, role in enumerate(ROLES):
            amount = dict(role.amounts)[currency] + bump
            charge_id = f"CH-{numbers[i]}{n}"
            refunded = amount * role.refunded_share[0] // role.refunded_share[1]
            charges[charge_id] = Charge(
                charge_id,
                cid,
                own[n % 2].id,
                _iso(role.days_ago + i % 3),
                role.merchant,
                amount,
                currency,
                refunded,
                "filed" if role.chargeback else "",
                mode,
            )
            if role.pending_share[0]:
                pending = Money(amount * role.pending_share[0] // role.pending_share[1], currency)
                reference = f"{charge_id}/1"
                requests.append(
                    RefundRequest(
                        reference,
                        pending.amount,
                        currency,
                        RefundState.PENDING_APPROVAL.value,
                        "requested in an earlier contact",
                    )
                )
                routes[reference] = RefundRoute(charge_id, approver_for(pending), mode)
    world = BillingWorld(
        {
            "customers": customers,
            "cards": cards,
            "charges": charges,
            "refund_routes": routes,
        }
    )
    world.backoffice.refund_requests.extend(requests)
    world.rehearsals = []
    return world
