"""What airline's `sandbox/reference` agent does for each kind of request once it holds the
reservation (`_<intent>`, dispatched by `DeskAgent.handle`): quote, apply the fare rules,
propose the exact action or refuse it with the policy's reason, or hand it to a human."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from evals.domains.airline.scripted import vocab
from evals.domains.airline.scripted.phrasings import CAUSES_ZH
from evals.domains.airline.world import CITIES, name_distance
from evals.engine.messages import Message
from evals.engine.sandbox.desk import DeskAgent, Request

MAX_BAGS = 3
CONTROLLABLE = {"technical", "crew", "operational"}
# The policy's certificate per passenger: (from 3 hours, from 6 hours or a cancellation).
CERTIFICATE = {
    "USD": ("100.00", "200.00"),
    "EUR": ("92.00", "184.00"),
    "GBP": ("79.00", "158.00"),
    "JPY": ("15000", "30000"),
}


@dataclass
class Req(Request):
    date: str = ""
    bags: int = 0


def _minor(text: str) -> tuple[int, int]:
    """A decimal string as (minor units, decimals)."""
    whole, _, frac = text.partition(".")
    return int(whole + frac), len(frac)


def _text(minor: int, places: int) -> str:
    return str(Decimal(minor).scaleb(-places)) if places else str(minor)


class ReservationRequests(DeskAgent[Req]):
    """The request handlers and what they read: the verified customer, the reservation chosen
    (`booking`, `res` once read), the flights searched and the quotes asked for (the agent's
    reading of tool results fills them)."""

    def __init__(self, *, domain: Any, params: Any, seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.customer_id = ""
        self.booking = ""
        self.res: dict[str, Any] | None = None
        self.flights: dict[str, list[dict[str, Any]]] = {}
        self.quotes: dict[str, dict[str, Any]] = {}

    def _trip(self) -> str:
        res = self.res
        assert res is not None
        flight = res["flight"]
        origin, dest = flight["from"][-4:-1], flight["to"][-4:-1]
        name = (lambda code: CITIES[code].zh) if self.zh else (lambda code: CITIES[code].name)
        return self.t(
            "trip",
            ref=res["booking_ref"],
            origin=name(origin),
            dest=name(dest),
            date=flight["date"],
        )

    def _refuse(self, r: Req, key: str, **values: Any) -> Message:
        return self.close(r, key, trip=self._trip(), **values)

    def _quote(self, name: str, **args: Any) -> Message | dict[str, Any]:
        quote = self.quotes.get(name)
        if quote is None or any(quote.get(k) not in (None, x) for k, x in args.items()):
            return self.call(name, **args)
        return quote

    # -- the requests --------------------------------------------------------------------

    def _change(self, r: Req) -> Message:
        res = self.res
        assert res is not None
        if res["fare"] == "basic":
            return self._refuse(r, "refuse_basic")
        if not r.date:
            return self._ask(r, "date", self.t("ask_date"))
        if r.date not in self.flights:
            return self.call("search_flights", booking_ref=self.booking, date=r.date)
        options = [f for f in self.flights[r.date] if f["status"] == "scheduled"]
        if not options:
            r.date = ""
            self.notes.append(self.t("no_flight", date=r.date))
            return self._ask(r, "date", self.t("ask_date"))
        flight = options[0]
        quote = self._quote(
            "quote_change", booking_ref=self.booking, new_flight_id=flight["flight_id"]
        )
        if isinstance(quote, Message):
            return quote
        cur = quote["currency"]
        return self.propose(
            "change_flight",
            {
                "booking_ref": self.booking,
                "new_flight_id": flight["flight_id"],
                "amount": quote["total"],
                "currency": cur,
            },
            self.t(
                "propose_change",
                trip=self._trip(),
                flight_id=flight["flight_id"],
                date=r.date,
                fee=quote["change_fee"],
                diff=quote["fare_difference"],
                total=quote["total"],
                currency=cur,
            ),
        )

    def _cancel(self, r: Req) -> Message:
        res = self.res
        assert res is not None
        if not res["refundable_now"]:
            return self._refuse(r, "refuse_24h", fare=res["fare"])
        paid, places = _minor(res["paid"])
        refunded, _ = _minor(res["refunded"])
        requested, _ = _minor(res["refunds_requested"])
        amount = _text(paid - refunded - requested, places)
        return self.propose(
            "cancel_reservation",
            {"booking_ref": self.booking, "refund_amount": amount, "currency": res["currency"]},
            self.t(
                "propose_cancel",
                trip=self._trip(),
                amount=amount,
                currency=res["currency"],
                method=res["payment_method"]["label"],
            ),
        )

    def _exception(self, r: Req) -> Message:
        return self._transfer(r, "exception")

    def _dispute(self, r: Req) -> Message:
        return self._transfer(r, "dispute")

    def _transfer(self, r: Req, category: str) -> Message:
        r.done = True
        step = self.call(
            "transfer_to_human",
            category=category,
            summary=f"Customer {self.customer_id} asks: {r.text.strip()[:160]}",
            booking_ref=self.booking,
        )
        return Message.assistant(self.t(category), step.tool_calls)

    def _bags(self, r: Req) -> Message:
        res = self.res
        assert res is not None
        if not r.bags:
            return self._ask(r, "bags", self.t("ask_bags"))
        if res["checked_bags"] + r.bags > MAX_BAGS * len(res["passengers"]):
            return self._refuse(r, "refuse_bag_limit", count=r.bags)
        quote = self._quote("quote_bags", booking_ref=self.booking, count=r.bags)
        if isinstance(quote, Message):
            return quote
        return self.propose(
            "add_checked_bags",
            {
                "booking_ref": self.booking,
                "count": r.bags,
                "fee": quote["fee"],
                "currency": quote["currency"],
            },
            self.t(
                "propose_bags",
                trip=self._trip(),
                count=r.bags,
                fee=quote["fee"],
                currency=quote["currency"],
            ),
        )

    def _name(self, r: Req) -> Message:
        res = self.res
        assert res is not None
        m = vocab.NEW_NAME.search(r.text)
        named = vocab.FULL_NAME.findall(r.text)
        if m:
            first, last = m.group(1), m.group(2)
        elif named:
            first, last = named[-1]  # "it says A B, but it should be A C": the last one named
        else:
            return self._ask(r, "name", self.t("ask_name"))
        new = f"{first} {last}"
        pax = min(
            res["passengers"],
            key=lambda p: name_distance(f"{p['first_name']} {p['last_name']}", new),
        )
        old = f"{pax['first_name']} {pax['last_name']}"
        if name_distance(old, new) > 3:
            return self._refuse(r, "refuse_transfer", new=new)
        return self.propose(
            "correct_passenger_name",
            {
                "booking_ref": self.booking,
                "passenger_id": pax["passenger_id"],
                "first_name": first,
                "last_name": last,
            },
            self.t("propose_name", trip=self._trip(), old=old, new=new),
        )

    def _passenger_named(self, text: str) -> dict[str, Any] | None:
        assert self.res is not None
        for p in self.res["passengers"]:
            if f"{p['first_name']} {p['last_name']}" in text:
                return p
        return None

    def _remove(self, r: Req) -> Message:
        res = self.res
        assert res is not None
        pax = self._passenger_named(r.text)
        if pax is None:
            if "passenger" in r.asked:
                return self._refuse(r, "no_passenger")
            return self._ask(r, "passenger", self.t("ask_passenger"))
        if len(res["passengers"]) < 2:
            return self._refuse(r, "refuse_last_passenger")
        if not res["refundable_now"]:
            return self._refuse(r, "refuse_24h", fare=res["fare"])
        fare, places = 0, 0
        for c in res["charges"]:
            if c["kind"] == "fare":
                minor, places = _minor(c["amount"])
                fare += minor
        amount = _text(fare // len(res["passengers"]), places)
        name = f"{pax['first_name']} {pax['last_name']}"
        return self.propose(
            "remove_passenger",
            {
                "booking_ref": self.booking,
                "passenger_id": pax["passenger_id"],
                "refund_amount": amount,
                "currency": res["currency"],
            },
            self.t(
                "propose_remove",
                trip=self._trip(),
                name=name,
                amount=amount,
                currency=res["currency"],
            ),
        )

    def _new_passenger(self, r: Req) -> Message:
        res = self.res
        assert res is not None
        found = vocab.FULL_NAME.findall(r.text)
        if not found:
            return self._ask(r, "name", self.t("ask_name"))
        first, last = found[-1]
        if not res["within_24_hours"]:
            return self._refuse(r, "refuse_add_passenger", name=f"{first} {last}")
        fare, cur = res["flight"]["price_per_passenger"], res["currency"]
        return self.propose(
            "add_passenger",
            {
                "booking_ref": self.booking,
                "first_name": first,
                "last_name": last,
                "amount": fare,
                "currency": cur,
            },
            self.t(
                "propose_add_passenger",
                trip=self._trip(),
                name=f"{first} {last}",
                fare=fare,
                currency=cur,
            ),
        )

    def _compensation(self, r: Req) -> Message:
        res = self.res
        assert res is not None
        flight = res["flight"]
        if res["compensation_issued"]:
            return self._refuse(r, "already_compensated")
        cause = flight["delay_cause"]
        if cause not in CONTROLLABLE:
            return self._refuse(r, "refuse_weather", flight=flight["flight_id"])
        cancelled = flight["status"] == "cancelled"
        minutes = flight["delay_minutes"]
        if not cancelled and minutes < 180:
            return self._refuse(r, "refuse_short", flight=flight["flight_id"], minutes=minutes)
        per, places = _minor(CERTIFICATE[res["currency"]][1 if cancelled or minutes >= 360 else 0])
        amount = _text(per * len(res["passengers"]), places)
        shown = CAUSES_ZH.get(cause, cause) if self.zh else cause
        what = (
            self.t("what_cancelled", cause=shown)
            if cancelled
            else self.t("what_delay", minutes=minutes, cause=shown)
        )
        return self.propose(
            "issue_compensation",
            {"booking_ref": self.booking, "amount": amount, "currency": res["currency"]},
            self.t(
                "propose_compensation",
                trip=self._trip(),
                amount=amount,
                currency=res["currency"],
                flight=flight["flight_id"],
                what=what,
            ),
        )
