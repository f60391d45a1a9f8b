"""The airline world: Aurora Air's customers, their payment methods in several currencies
(USD, EUR, GBP and the zero-decimal JPY), flights on a handful of routes and reservations,
built from a seed.

The customers and their reservations are generated in `population`.

All money is held in minor units of the reservation's payment currency and checked with
payments_sandbox.domain.Money.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from evals.engine.world import World
from payments_sandbox.domain import Money

NOW = "2026-03-10T12:00"
TODAY = NOW[:10]
CANCEL_WINDOW_HOURS = 24
MAX_BAGS_PER_PASSENGER = 3
MAX_NAME_CORRECTION = 3  # characters changed in a name correction
DELAY_MINOR_MIN = 180  # from 3 hours: the smaller certificate
DELAY_MAJOR_MIN = 360  # from 6 hours (or a cancellation): the larger certificate
CONTROLLABLE_CAUSES = frozenset({"technical", "crew", "operational"})
CURRENCIES = ("USD", "EUR", "JPY", "GBP")

# Amounts in USD cents, turned into each currency's minor units at a fixed desk rate.
_RATE = {"USD": (1, 1), "EUR": (92, 100), "GBP": (79, 100), "JPY": (150, 100)}
CHANGE_FEE_USD = 7500
BAG_FEE_USD = 3500
CERTIFICATE_USD = {"minor": 10000, "major": 20000}

ROSTER: dict[str, str] = {
    "dispute": "Maya Okafor (customer relations)",
    "exception": "Daniel Weiss (fare exceptions desk)",
    "other": "Sofia Lind (reservations)",
}


def in_currency(usd_cents: int, currency: str) -> int:
    """A USD-cent amount in `currency`'s minor units (whole yen for JPY), rounded down."""
    num, den = _RATE[currency]
    return usd_cents * num // den  # 150 yen to the dollar: cents * 1.5 are whole yen


def money_text(minor: int, currency: str) -> str:
    return Money(minor, currency).to_decimal_string()


@dataclass(frozen=True, slots=True)
class City:
    code: str
    name: str
    zh: str


CITIES: dict[str, City] = {
    c.code: c
    for c in (
        City("BOS", "Boston", "波士顿"),
        City("HND", "Tokyo", "东京"),
        City("FRA", "Frankfurt", "法兰克福"),
        City("LHR", "London", "伦敦"),
        City("SFO", "San Francisco", "旧金山"),
        City("CDG", "Paris", "巴黎"),
        City("ORD", "Chicago", "芝加哥"),
        City("KIX", "Osaka", "大阪"),
    )
}
ROUTES = (
    ("AU101", "BOS", "HND"),
    ("AU214", "FRA", "LHR"),
    ("AU330", "SFO", "CDG"),
    ("AU452", "ORD", "KIX"),
    ("AU518", "LHR", "BOS"),
    ("AU627", "CDG", "FRA"),
)
FLIGHT_DATES = tuple(f"2026-03-{d:02d}" for d in range(3, 27))


@dataclass(frozen=True, slots=True)
class Flight:
    id: str  # flight number and date, e.g. "AU101-2026-03-14"
    number: str
    origin: str
    destination: str
    date: str
    departs: str  # local time HH:MM
    status: str  # scheduled | delayed | cancelled | landed
    delay_minutes: int
    cause: str  # technical | crew | operational | weather | air traffic control | ""
    prices: tuple[tuple[str, int], ...]  # (cabin, USD cents per passenger)

    def price(self, cabin: str, currency: str) -> int:
        return in_currency(dict(self.prices)[cabin], currency)


@dataclass(frozen=True, slots=True)
class PaymentMethod:
    id: str
    kind: str  # card | paypal
    label: str  # "Visa ending 4821"
    currency: str


@dataclass(frozen=True, slots=True)
class Customer:
    id: str
    first_name: str
    last_name: str
    email: str
    tier: str  # none | silver | gold
    payment_methods: tuple[PaymentMethod, ...]


@dataclass(frozen=True, slots=True)
class Passenger:
    id: str  # "P1", "P2" within a reservation
    first_name: str
    last_name: str


@dataclass(frozen=True, slots=True)
class Charge:
    """A charge or credit on the reservation's payment method, in its currency."""

    kind: str  # fare | change_fee | fare_difference | bag_fee
    amount: int


@dataclass(frozen=True, slots=True)
class Reservation:
    id: str  # the booking reference, e.g. "QX7K2P"
    customer_id: str
    flight_id: str
    cabin: str  # economy | business
    fare: str  # basic | standard | flex
    passengers: tuple[Passenger, ...]
    booked_at: str  # ISO date and time
    status: str  # confirmed | cancelled | flown
    payment_method_id: str
    currency: str
    charges: tuple[Charge, ...]
    refunded: int
    checked_bags: int
    certificates: tuple[str, ...] = ()  # certificate codes issued on this reservation

    @property
    def paid(self) -> int:
        return sum(c.amount for c in self.charges)

    @property
    def fare_paid(self) -> int:
        return sum(c.amount for c in self.charges if c.kind == "fare")


@dataclass(frozen=True, slots=True)
class Certificate:
    """A travel certificate (voucher) issued as delay or cancellation compensation."""

    code: str
    reservation_id: str
    amount: int
    currency: str


class AirlineWorld(World):
    def customer(self, customer_id: str) -> Customer:
        return self.record(
            "customers",
            customer_id,
            f"No customer with id {customer_id!r}. Customer ids look like C1001.",
        )

    def reservation(self, booking_ref: str) -> Reservation:
        return self.record(
            "reservations",
            booking_ref.strip().upper(),
            f"No reservation with booking reference {booking_ref!r}. "
            "Booking references are six letters and digits, e.g. QX7K2P.",
        )

    def flight(self, flight_id: str) -> Flight:
        return self.record(
            "flights",
            flight_id.strip().upper(),
            f"No flight {flight_id!r}. Flight ids are the number and date, e.g. AU101-2026-03-14.",
        )

    def reservations_of(self, customer_id: str) -> list[Reservation]:
        return self.records_where("reservations", customer_id=customer_id)

    def put(self, table: str, key: str, record: object) -> None:
        self.tables[table][key] = record


# -- the policy's arithmetic, shared by tools, rules and tasks ---------------------------


def hours_since_booking(res: Reservation) -> float:
    delta = datetime.fromisoformat(NOW) - datetime.fromisoformat(res.booked_at)
    return delta.total_seconds() / 3600


def within_24_hours(res: Reservation) -> bool:
    return hours_since_booking(res) < CANCEL_WINDOW_HOURS


def refundable(world: AirlineWorld, res: Reservation) -> bool:
    """A full refund: within 24 hours of booking, on a flexible fare, or when the airline
    cancelled the flight."""
    return (
        within_24_hours(res)
        or res.fare == "flex"
        or world.flight(res.flight_id).status == "cancelled"
    )


def change_fee(res: Reservation) -> int:
    """Standard fares pay the change fee; flexible fares none (basic fares cannot change)."""
    return in_currency(CHANGE_FEE_USD, res.currency) if res.fare == "standard" else 0


def fare_difference(world: AirlineWorld, res: Reservation, new_flight: Flight) -> int:
    """What the new flight costs more for all passengers (never negative: a cheaper flight
    refunds nothing)."""
    old = world.flight(res.flight_id).price(res.cabin, res.currency)
    new = new_flight.price(res.cabin, res.currency)
    return max(0, new - old) * len(res.passengers)


def bag_allowance(customer: Customer, res: Reservation) -> int:
    """Free checked bags for the whole reservation: per passenger by cabin and fare, plus the
    account holder's tier bonus per passenger."""
    cabin = 2 if res.cabin == "business" else 0 if res.fare == "basic" else 1
    tier = {"none": 0, "silver": 1, "gold": 2}[customer.tier]
    return (cabin + tier) * len(res.passengers)


def bag_fee(customer: Customer, res: Reservation, count: int) -> int:
    free_left = max(0, bag_allowance(customer, res) - res.checked_bags)
    return max(0, count - free_left) * in_currency(BAG_FEE_USD, res.currency)


def certificate_due(flight: Flight, passengers: int, currency: str) -> int:
    """Compensation for a delay or cancellation the airline controls: per passenger, the
    smaller certificate from 3 hours' delay, the larger from 6 hours or for a cancellation;
    nothing for weather or air traffic control, nothing under 3 hours."""
    if flight.cause not in CONTROLLABLE_CAUSES:
        return 0
    if flight.status == "cancelled" or flight.delay_minutes >= DELAY_MAJOR_MIN:
        size = "major"
    elif flight.delay_minutes >= DELAY_MINOR_MIN:
        size = "minor"
    else:
        return 0
    return in_currency(CERTIFICATE_USD[size], currency) * passengers


def name_distance(a: str, b: str) -> int:
    """Characters inserted, deleted or replaced to turn `a` into `b` (case-insensitive)."""
    a, b = a.lower(), b.lower()
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def passenger_share(res: Reservation) -> int:
    """One passenger's part of the fare paid (the fare split evenly)."""
    return res.fare_paid // len(res.passengers)
