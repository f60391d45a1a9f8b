"""The airline population, built from a seed: customers are generated from *profiles* (a
booking made a few hours ago, a basic-economy booking, an older standard-economy booking, a
flexible fare, flights that were delayed or cancelled for a cause the airline controls or for
the weather), three customers per profile paying in different currencies, so every task recipe
finds a customer in the situation it needs and each identity variant talks to a different one.
Every customer also holds a second, unrelated reservation, so a customer who does not know its
booking reference has to be told which one the agent means by its contents (route and date).
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from evals.domains.airline.world import (
    CURRENCIES,
    FLIGHT_DATES,
    NOW,
    ROUTES,
    TODAY,
    AirlineWorld,
    Charge,
    Customer,
    Flight,
    Passenger,
    PaymentMethod,
    Reservation,
)

FIRST = ("Ava", "Liam", "Mei", "Kenji", "Sofia", "Noah", "Hana", "Lucas", "Emma", "Yuki",
         "Olivia", "Mateo", "Chloe", "Ethan", "Aiko", "Felix", "Nora", "Oscar", "Lena", "Ivan",
         "Ruby", "Hugo", "Iris", "Leo")  # fmt: skip
LAST = ("Adler", "Brennan", "Chen", "Dubois", "Eriksen", "Fischer", "Garcia", "Hoffman",
        "Ito", "Jensen", "Kowalski", "Larsen", "Moreau", "Nakamura", "Olsen", "Petrov",
        "Quinn", "Rossi", "Schmidt", "Tanaka", "Ueda", "Vogel", "Weber", "Young")  # fmt: skip


@dataclass(frozen=True)
class Profile:
    name: str
    cabin: str
    fare: str
    passengers: int
    booked_hours_ago: int
    tier: str
    flight_day: int  # day of March 2026
    flight_status: str = "scheduled"
    delay: int = 0
    cause: str = ""
    checked_bags: int = 0
    typo: bool = False  # the first passenger's last name is misspelled


PROFILES = (
    Profile("fresh", "economy", "standard", 2, 5, "none", 20, checked_bags=1, typo=True),
    Profile("basic", "economy", "basic", 1, 240, "none", 18, typo=True),
    Profile("standard", "economy", "standard", 2, 480, "silver", 16),
    Profile("flex", "business", "flex", 2, 720, "gold", 19, checked_bags=1),
    Profile("delayed", "economy", "standard", 2, 600, "none", 7, "landed", 250, "technical"),
    Profile("cancelled", "economy", "basic", 1, 700, "silver", 7, "cancelled", 0, "crew"),
    Profile("weather", "economy", "standard", 2, 650, "none", 7, "landed", 300, "weather"),
    Profile("short", "economy", "standard", 1, 500, "none", 6, "landed", 95, "technical"),
    Profile("very-late", "business", "flex", 1, 800, "gold", 3, "landed", 400, "operational"),
)
CUSTOMERS_PER_PROFILE = 3
_CARD_KINDS = ("Visa", "Mastercard", "Amex")


def _misspell(name: str) -> str:
    """A typing slip in a name: two different neighbouring letters swapped."""
    i = next(i for i in range(len(name) // 2, len(name)) if name[i] != name[i - 1])
    return name[: i - 1] + name[i] + name[i - 1] + name[i + 1 :]


def _stamp(hours_ago: int) -> str:
    return (datetime.fromisoformat(NOW) - timedelta(hours=hours_ago)).isoformat(timespec="minutes")


def _flights(rng: random.Random) -> dict[str, Flight]:
    flights = {}
    for r_index, (number, origin, dest) in enumerate(ROUTES):
        base = rng.randrange(420, 780) * 100
        for i, date in enumerate(FLIGHT_DATES):
            eco = base + ((i * 37 + rng.randrange(0, 9)) % 9) * 1500
            fid = f"{number}-{date}"
            flights[fid] = Flight(
                fid, number, origin, dest, date,
                f"{8 + (r_index % 3) * 3:02d}:{(i * 5) % 60:02d}",
                "landed" if date < TODAY else "scheduled", 0, "",
                (("economy", eco), ("business", eco * 3)),
            )  # fmt: skip
    return flights


def _ref(rng: random.Random, taken: set[str]) -> str:
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    while True:
        ref = (
            rng.choice(letters)
            + "".join(rng.choice(letters + "23456789") for _ in range(4))
            + rng.choice("23456789")
        )
        if ref not in taken:
            taken.add(ref)
            return ref


@functools.lru_cache(maxsize=8)
def build_world(seed: int = 0) -> AirlineWorld:
    """The pristine world for `seed` (cached: the engine only ever uses copies of it)."""
    rng = random.Random(seed)
    flights = _flights(rng)
    customers: dict[str, Customer] = {}
    reservations: dict[str, Reservation] = {}
    refs: set[str] = set()
    n = 0
    for p_index, prof in enumerate(PROFILES):
        for k in range(CUSTOMERS_PER_PROFILE):
            currency = CURRENCIES[(p_index + k) % len(CURRENCIES)]
            first, last = FIRST[n % len(FIRST)], LAST[(n * 7) % len(LAST)]
            cid = f"C{1001 + n}"
            pm = PaymentMethod(
                f"pm_{cid.lower()}",
                "card",
                f"{_CARD_KINDS[n % 3]} ending {rng.randrange(1000, 9999)}",
                currency,
            )
            customer = Customer(
                cid, first, last, f"{first.lower()}.{last.lower()}{n}@example.com", prof.tier, (pm,)
            )
            customers[cid] = customer
            route = ROUTES[(p_index + k) % len(ROUTES)]
            fid = f"{route[0]}-2026-03-{prof.flight_day + k:02d}"
            f = flights[fid]
            if prof.flight_status != "scheduled":
                flights[fid] = f = Flight(
                    f.id, f.number, f.origin, f.destination, f.date, f.departs,
                    prof.flight_status, prof.delay + 10 * k if prof.delay else 0, prof.cause,
                    f.prices,
                )  # fmt: skip
            companion = FIRST[(n + 5) % len(FIRST)]
            pax = [Passenger("P1", first, _misspell(last) if prof.typo else last)]
            if prof.passengers > 1:
                pax.append(Passenger("P2", companion, last))
            fare_total = f.price(prof.cabin, currency) * len(pax)
            ref = _ref(rng, refs)
            reservations[ref] = Reservation(
                ref, cid, fid, prof.cabin, prof.fare, tuple(pax), _stamp(prof.booked_hours_ago),
                "flown" if prof.flight_status in ("landed",) else "confirmed", pm.id, currency,
                (Charge("fare", fare_total),), 0, prof.checked_bags,
            )  # fmt: skip
            # A second, unrelated trip: a later flight on another route.
            other = ROUTES[(p_index + k + 3) % len(ROUTES)]
            ofid = f"{other[0]}-2026-03-{22 + k:02d}"
            oref = _ref(rng, refs)
            reservations[oref] = Reservation(
                oref, cid, ofid, "economy", "standard", (Passenger("P1", first, last),),
                _stamp(900 + 24 * k), "confirmed", pm.id, currency,
                (Charge("fare", flights[ofid].price("economy", currency)),), 0, 1,
            )  # fmt: skip
            n += 1
    return AirlineWorld(
        {
            "customers": customers,
            "flights": flights,
            "reservations": reservations,
            "certificates": {},
        }
    )
