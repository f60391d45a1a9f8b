"""`sandbox/reference` for airline: a rule-based agent that follows policy.md.

It learns everything from the conversation: the customer's text (parsed with the shared
vocabulary) and the results of its own tool calls. It verifies identity (booking reference and
last name, or email), finds the reservation (by reference, or by the route the customer
describes, and names it by route and date), looks it up, quotes, applies the fare rules,
summarises the exact action, asks for a yes, writes and reports, refuses what the policy
forbids with the policy's reason, and hands exceptions and disputes to a human. It handles one
request at a time — its slowness with hurried customers is real. What it does for each kind of
request is its base class, `requests.ReservationRequests`.

Every sentence it says comes from one wording of `phrasings.PHRASINGS`, chosen by the param
`phrasing` ("en", the default, or "en-2", "zh").
"""

from __future__ import annotations

from typing import Any

from evals.domains.airline.scripted import vocab
from evals.domains.airline.scripted.phrasings import PHRASINGS
from evals.domains.airline.scripted.requests import Req, ReservationRequests
from evals.engine.messages import Message
from evals.engine.sandbox.desk import tool_data

WRITES = {
    "change_flight",
    "cancel_reservation",
    "add_checked_bags",
    "correct_passenger_name",
    "add_passenger",
    "remove_passenger",
    "issue_compensation",
}


class AirlineReferenceAgent(ReservationRequests):
    DOMAIN = "airline"
    PHRASINGS = PHRASINGS

    def __init__(self, *, domain: Any, params: Any, seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.email = ""
        self.ref = ""
        self.last = ""
        self.tried: set[str] = set()
        self.listed: list[dict[str, Any]] | None = None
        self.cities: list[str] = []
        self.asked_trip = 0

    def new_request(self, intent: str) -> Req:
        return Req(intent)

    # -- reading the customer ------------------------------------------------------------

    def has_new_facts(self, text: str) -> bool:
        return bool(
            vocab.BOOKING_REF.search(text)
            or vocab.EMAIL.search(text)
            or vocab.DATE.search(text)
            or vocab.bags_in(text)
            or vocab.intent_of(text)
        )

    def observe_user(self, text: str) -> None:
        self.heard_why(text)
        email = vocab.EMAIL.search(text)
        if email:
            self.email = email.group(0).rstrip(".").lower()
        ref = vocab.BOOKING_REF.search(text.replace(self.email.upper(), ""))
        if ref:
            self.ref = ref.group(1)
        last = vocab.LAST_NAME.search(text)
        if last:
            self.last = last.group(1) or last.group(2)
        fixed = vocab.CORRECTION.search(text)
        if fixed and (fixed.group(2) or fixed.group(4)) == self.last:
            self.last = fixed.group(1) or fixed.group(3)
        cities = vocab.cities_in(text)
        if len(cities) >= 2:
            self.cities = cities
        for sentence in vocab.SENTENCE.split(text):
            self.take(sentence, vocab.intent_of(sentence))

    def _absorb(self, r: Req, sentence: str) -> None:
        r.text += " " + sentence
        date = vocab.DATE.search(sentence)
        if date and r.intent == "change":
            r.date = date.group(1)
        bags = vocab.bags_in(sentence)
        if bags:
            r.bags = bags

    # -- reading tool results ------------------------------------------------------------

    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        data = tool_data(content, error)
        if name == "find_reservation":
            if error:
                self.failed = self.t(
                    "not_found_ref", ref=args["booking_ref"], last=args["last_name"]
                )
            else:
                self.customer_id = data["customer_id"]
                self.booking = data["booking_ref"]
        elif name == "find_customer_by_email":
            if error:
                self.failed = self.t("not_found_email", email=args["email"])
            else:
                self.customer_id = data["customer_id"]
                self.listed = data["reservations"]
        elif name == "get_reservation" and not error:
            self.res = data
        elif name == "search_flights":
            self.flights[args["date"]] = [] if error else data
        elif name.startswith("quote_") and not error:
            self.quotes[name] = data
        elif name in WRITES and self.active is not None:
            self.active.done = True
            if error:
                self.notes.append(self.t("write_failed", error=content.removeprefix("Error: ")))
            else:
                self.notes.append(self._done_text(name, args, data))
            self.res = None
            self.quotes.clear()

    def _done_text(self, name: str, args: dict[str, Any], data: dict[str, Any]) -> str:
        ref = args["booking_ref"]
        if name == "add_checked_bags":
            return self.t(f"done_{name}", ref=ref, bags=data["checked_bags"], **data)
        if name == "issue_compensation":
            return self.t(f"done_{name}", code=data["certificate"], **data)
        return self.t(
            f"done_{name}", ref=ref, **{k: x for k, x in data.items() if k != "booking_ref"}
        )

    # -- deciding ------------------------------------------------------------------------

    def plan(self) -> Message:
        if not self.customer_id:
            return self._authenticate()
        if not self.booking:
            return self._choose_reservation()
        if self.res is None:
            return self.call("get_reservation", booking_ref=self.booking)
        return self.serve([r for r in self.reqs if not r.done])

    def _authenticate(self) -> Message:
        if self.ref and self.last and f"r:{self.ref}/{self.last}" not in self.tried:
            self.tried.add(f"r:{self.ref}/{self.last}")
            return self.call("find_reservation", booking_ref=self.ref, last_name=self.last)
        if self.email and f"e:{self.email}" not in self.tried:
            self.tried.add(f"e:{self.email}")
            return self.call("find_customer_by_email", email=self.email)
        return self.ask_identity()

    def _choose_reservation(self) -> Message:
        listed = self.listed or []
        refs = [r["booking_ref"] for r in listed]
        if self.ref in refs:
            self.booking = self.ref
            return self.plan()
        if len(self.cities) >= 2:
            for r in listed:
                if r["from"] == self.cities[0] and r["to"] == self.cities[1]:
                    self.booking = r["booking_ref"]
                    return self.plan()
        self.asked_trip += 1
        return self.say(self.t("ask_trip"))
