"""The telecom world: a mobile carrier's customers, their lines (plan, status, data used,
roaming, SIM), their bills in three currencies, and — on the customer's side — the phone each
one holds.

Dual control: the carrier's records are the agent's side (`customers`, `lines`, `bills`); the
customer's phone is the `user:device` table (`evals.engine.world.USER_SIDE`), changed only by
the customer's own tools. What the phone shows (signal, mobile data) depends on both sides: a
suspended line or roaming blocked on the account gives "no service" whatever the phone's
settings, and a phone in airplane mode has no service whatever the account says.

The customers and their phones are generated in `population`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from evals.engine.errors import ToolError
from evals.engine.world import USER_SIDE, World
from payments_sandbox.domain import Money

TODAY = "2025-06-15"
DEVICE = f"{USER_SIDE}device"
PHONE = "phone"
# The carrier's access point name: the only APN that carries mobile data on this network.
APN = "internet"
# A SIM (physical or eSIM) can be replaced once in this many days.
SIM_REPLACEMENT_DAYS = 30
MB_PER_GB = 1024

ROSTER: dict[str, str] = {
    "dispute": "Grace Okafor (billing disputes)",
    "fraud": "Samir Haddad (fraud and security desk)",
    "other": "Lena Vogel (customer care)",
}


@dataclass(frozen=True, slots=True)
class Plan:
    id: str
    name: str
    rank: int
    data_gb: int  # 0 = unlimited
    roaming: bool  # whether roaming may be enabled on a line of this plan
    prices: tuple[tuple[str, int], ...]  # (currency, monthly price in minor units)

    def price(self, currency: str) -> int:
        return dict(self.prices)[currency]


PLANS: dict[str, Plan] = {
    "basic": Plan("basic", "Basic", 1, 5, False, (("USD", 3000), ("EUR", 2800), ("GBP", 2500))),
    "plus": Plan("plus", "Plus", 2, 20, True, (("USD", 4500), ("EUR", 4200), ("GBP", 3800))),
    "unlimited": Plan(
        "unlimited", "Unlimited", 3, 0, True, (("USD", 7000), ("EUR", 6500), ("GBP", 5800))
    ),
}
TOPUP_PRICE: dict[int, dict[str, int]] = {
    1: {"USD": 1000, "EUR": 900, "GBP": 800},
    5: {"USD": 2500, "EUR": 2300, "GBP": 2000},
}


@dataclass(frozen=True, slots=True)
class Customer:
    id: str  # e.g. "C300101"
    first_name: str
    last_name: str
    email: str
    date_of_birth: str
    phone_number: str  # the line's number, e.g. "+1-555-0101"
    currency: str
    card_last4: str  # the payment card on file


@dataclass(frozen=True, slots=True)
class Line:
    id: str  # e.g. "L300101"
    customer_id: str
    phone_number: str
    plan_id: str
    status: str  # active | suspended
    suspension_reason: str  # "" | unpaid_bill | fraud_review
    data_used_mb: int
    data_limit_mb: int  # the plan's allowance plus top-ups this cycle (0 = unlimited)
    roaming_enabled: bool
    iccid: str  # the SIM the network accepts for this line
    esim: bool
    sim_changed_days_ago: int
    puk: str
    puk_disclosures: int
    settings_pushes: int


@dataclass(frozen=True, slots=True)
class Bill:
    id: str  # e.g. "B300101-05"
    customer_id: str
    period: str
    currency: str
    amount: int
    status: str  # paid | open | overdue
    due_date: str
    paid_with: str = ""  # "card 4242" once paid


@dataclass(frozen=True, slots=True)
class Device:
    """The customer's phone, as the customer's own tools see and change it."""

    line_id: str
    airplane_mode: bool
    mobile_data: bool
    data_roaming: bool
    location: str  # home | abroad (the country the customer says it is in)
    sim_status: str  # ready | puk_locked | not_detected
    iccid: str  # the SIM (or eSIM profile) in the phone
    pin: str
    apn: str
    needs_restart: bool  # rejected by the network earlier; registers again after a restart
    app_data: tuple[tuple[str, bool], ...]  # (app, allowed to use mobile data)


class TelecomWorld(World):
    def customer(self, customer_id: str) -> Customer:
        return self.record(
            "customers",
            customer_id,
            f"No customer with id {customer_id!r}. Customer ids look like C300101.",
        )

    def line(self, line_id: str) -> Line:
        return self.record(
            "lines",
            line_id,
            f"No line with id {line_id!r}. Line ids look like L300101.",
        )

    def bill(self, bill_id: str) -> Bill:
        return self.record(
            "bills",
            bill_id,
            f"No bill with id {bill_id!r}. Bill ids look like B300101-05.",
        )

    def lines_of(self, customer_id: str) -> list[Line]:
        return self.records_where("lines", customer_id=customer_id)

    def bills_of(self, customer_id: str) -> list[Bill]:
        return self.records_where("bills", customer_id=customer_id)

    def unpaid_bills(self, customer_id: str) -> list[Bill]:
        return [b for b in self.bills_of(customer_id) if b.status != "paid"]

    def overdue_bills(self, customer_id: str) -> list[Bill]:
        return [b for b in self.bills_of(customer_id) if b.status == "overdue"]

    def put(self, table: str, key: str, record: object) -> None:
        self.tables[table][key] = record

    # -- the customer's phone --------------------------------------------------------------

    def device(self) -> Device:
        device = self.tables[DEVICE].get(PHONE)
        if device is None:
            raise ToolError("There is no phone in this conversation.")
        return device

    def put_device(self, device: Device) -> None:
        self.tables[DEVICE][PHONE] = device


def money_text(minor: int, currency: str) -> str:
    return Money(minor, currency).to_decimal_string()


def esim_code(line_id: str, iccid: str) -> str:
    """The activation code of a new eSIM profile (deterministic, so gold replays agree)."""
    digest = hashlib.sha256(f"{line_id}|{iccid}".encode()).hexdigest()[:8].upper()
    return f"LPA-{digest}"


def new_iccid(line: Line) -> str:
    return f"8901{line.id[1:]}{line.sim_changed_days_ago % 97:02d}9"


# -- what the phone shows: both sides of the world --------------------------------------------


def signal(world: TelecomWorld) -> str:
    """The status bar's signal: "airplane mode", "no SIM", "SIM locked", "no service" or
    "4 bars". The account decides too: a suspended line, a SIM the network no longer accepts
    or roaming blocked abroad leave the phone without service."""
    d = world.device()
    line = world.tables["lines"].get(d.line_id)
    if d.airplane_mode:
        return "airplane mode"
    if d.sim_status == "not_detected":
        return "no SIM"
    if d.sim_status == "puk_locked":
        return "SIM locked"
    if line is None or line.iccid != d.iccid or line.status != "active" or d.needs_restart:
        return "no service"
    if d.location == "abroad" and not line.roaming_enabled:
        return "no service"
    return "4 bars"


def data_works(world: TelecomWorld) -> bool:
    d = world.device()
    line = world.tables["lines"].get(d.line_id)
    if signal(world) != "4 bars" or line is None or not d.mobile_data or d.apn != APN:
        return False
    if d.location == "abroad" and not d.data_roaming:
        return False
    return line.data_limit_mb == 0 or line.data_used_mb < line.data_limit_mb


def app_data_allowed(world: TelecomWorld, app: str) -> bool:
    return dict(world.device().app_data).get(app, True)
