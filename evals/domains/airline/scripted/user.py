"""`sandbox/scripted` for airline: a customer who follows their scenario.

They read the agent's message by what it does (the engine's `UtteranceReader` with the
airline's entities and verbs, `vocab.READER`) and by the values it names, not by the
reference agent's phrases, in English or Chinese. They give the identity they have (booking
reference and last name, or email — with the booking reference when they know it), describe
their trip by its route and date when they do not know the reference (and say no to a
proposal about another trip), state their requests one at a time or all at once, and say yes
to a proposal whose values match what they want (the new date, the number of bags, the
corrected name, the passenger to take off), otherwise they restate what they want. They know
what they want, not what the policy allows: a proposal the policy forbids gets the same yes,
and the guard and the oracle judge it. They accept a refusal and a transfer, and pursue every
request before saying goodbye. The persona (the engine's ScriptedUserBase) decides how they
say it and when they give up.
"""

from __future__ import annotations

from typing import Any

from evals.domains.airline.scripted import vocab
from evals.domains.airline.scripted.customer_phrases import PHRASES
from evals.engine.messages import Signal
from evals.engine.sandbox.request_user import RequestListUser
from evals.engine.understanding.utterances import Act, ActKind, Reading

# The reader's action -> the customer's request it is about.
ACTION_INTENT = {
    "change_flight": "change",
    "reschedule": "change",
    "cancel": "cancel",
    "add_bags": "bags",
    "correct_name": "name",
    "remove_passenger": "remove",
    "add_passenger": "new_passenger",
    "compensate": "compensation",
}
IDENTITY_SLOTS = {"email", "booking_id", "name", "last_name", "account_id"}
TRIP_SLOTS = {"city", "route", "date", "flight_id", "trip", "destination", "origin"}


def _slip(name: str) -> str:
    """The confused customer's slip in its last name: the last letter mistyped."""
    return name[:-1] + ("k" if name[-1] != "k" else "n")


class AirlineScriptedUser(RequestListUser):
    reader = vocab.READER
    PHRASES = PHRASES
    HESITATES = False

    def __init__(self, *, scenario: Any, persona: Any, seed: int) -> None:
        super().__init__(scenario=scenario, persona=persona, seed=seed)
        self.trip: dict[str, str] = self.data["trip"]
        self.trip_told = False

    # -- what the customer says ----------------------------------------------------------

    def _trip(self) -> str:
        self.trip_told = True
        zh = self.language.value.startswith("zh")
        return self.say(
            "trip",
            origin=self.trip["from_zh" if zh else "from"],
            dest=self.trip["to_zh" if zh else "to"],
            date=self.trip["date"],
        )

    def _state(self, i: int) -> str:
        self.stated.add(i)
        r = self.requests[i]
        intent = r["intent"]
        if intent == "change":
            text = self.say("change", date=r["date"])
        elif intent == "cancel":
            text = self.say("cancel")
        elif intent == "bags":
            word = self.say("bag_one" if r["count"] == 1 else "bag_many")
            text = self.say("bags", count=r["count"], bag_word=word)
        elif intent == "name":
            if r.get("transfer"):
                text = self.say(
                    "name_transfer",
                    first=r["first"],
                    wrong=r["wrong"],
                    new_first=r["new_first"],
                    right=r["right"],
                )
            else:
                text = self.say("name", first=r["first"], wrong=r["wrong"], right=r["right"])
        elif intent == "remove":
            text = self.say("remove", name=r["name"])
        elif intent == "new_passenger":
            text = self.say("add_passenger", name=r["name"])
        elif intent == "compensation":
            text = self.say(f"compensation_{r['what']}")
        elif intent == "exception":
            text = self.say(f"exception_{r['what']}")
        else:
            text = self.say("dispute")
        if not self.identity["booking_ref"] and not self.trip_told:
            text = self.join(text, self._trip())
        return text

    def _identity(self, slots: tuple[str, ...] = ()) -> str:
        ident = self.identity
        if ident["gives"] == "ref":
            last = self.as_given(ident["last_name"], slip=_slip)
            return self.say("ref_name", ref=ident["booking_ref"], last=last)
        if ident["booking_ref"]:
            return self.say("email_ref", email=ident["email"], ref=ident["booking_ref"])
        prefix = self.say("no_ref") if "booking_id" in slots else ""
        return prefix + self.say("email", email=ident["email"])

    # -- answering the agent -------------------------------------------------------------

    def _about(self, acts: tuple[Act, ...]) -> int | None:
        """The open request the acts concern, by their action; else None."""
        for act in acts:
            intent = ACTION_INTENT.get(act.action, "")
            for i in self._open():
                if self.requests[i]["intent"] == intent:
                    return i
        return None

    def _matches(self, r: dict[str, Any], text: str) -> bool:
        """Whether a proposal names the values the customer wants."""
        intent = r["intent"]
        if intent == "change":
            return r["date"] in text
        if intent == "bags":
            return vocab.bags_in(text) == r["count"]
        if intent == "name":
            return f"{r.get('new_first', r['first'])} {r['right']}" in text
        if intent in ("remove", "new_passenger"):
            return r["name"] in text
        return True

    def _my_trip(self, text: str) -> bool:
        """A customer without its booking reference knows its trip by route: a proposal that
        names another route is about another reservation."""
        if self.identity["booking_ref"]:
            return True
        cities = vocab.cities_in(text)
        return not cities or self.trip["from"] in cities

    def _go_ahead(self, reading: Reading) -> str:
        confirms = reading.of(ActKind.CONFIRM)
        about = self._about(confirms)
        if about is None and any(a.action in ACTION_INTENT for a in confirms):
            # A proposal of an action the customer never asked for.
            return self._decline()
        if about is None:
            about = self._about(reading.acts)
        if about is None:
            about = self._focus() if self._open() else None
        if about is None:
            return self.say("not_asked", request=self._state(0))
        if not self._my_trip(reading.text):
            return self.say("not_my_trip", trip=self._trip())
        if not self._matches(self.requests[about], reading.text):
            return self._decline(about)
        self.confirmed = about
        return self._affirm(about)

    def _settle(self, reading: Reading) -> tuple[str, Signal] | None:
        """Take in what the agent says it did or refused: those requests are settled."""
        if reading.has(ActKind.DONE):
            # What was done is what the customer just said yes to; without a yes pending, what
            # the "done" names (unless it is the summary of a new proposal).
            about = self.confirmed
            if about is None and not reading.has(ActKind.CONFIRM):
                about = self._about(reading.of(ActKind.DONE))
            if about is not None:
                self.done.add(about)
                self.confirmed = None
        if not self.refusal_heard(reading) or not self._open():
            return None
        about = self._about(reading.of(ActKind.REFUSE))
        if about is None:
            about = self.confirmed if self.confirmed is not None else self._focus()
        self.confirmed = None
        self.done.add(about)
        return None

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        reading = vocab.READER.read(agent_text)
        correction = self.correct_mistake(lambda wrong: wrong in agent_text)
        if correction is not None:
            return correction
        if reading.has(ActKind.HANDOFF) or vocab.TRANSFER.lower() in agent_text.lower():
            self.finished = True
            return self.say("transfer_thanks"), Signal.STOP
        self._settle(reading)
        if reading.has(ActKind.CONFIRM):
            return self._go_ahead(reading), Signal.NONE
        verify = reading.first(ActKind.VERIFY)
        if verify is not None:
            return self.verify_identity(verify.slots)
        for kind in (ActKind.ASK, ActKind.CHOICE, ActKind.CHECK):
            act = reading.first(kind)
            if act is not None:
                return self._answer(act, reading)
        not_found = reading.first(ActKind.NOT_FOUND)
        if not_found is not None:
            return self.verify_identity(not_found.slots)
        return self._next(reading)

    def _answer(self, act: Act, reading: Reading) -> tuple[str, Signal]:
        slots = set(act.slots)
        if (
            slots & TRIP_SLOTS
            or vocab.cities_in(act.text)
            or "trip" in act.text.lower()
            or "行程" in act.text
        ):
            if self.asked("trip"):
                return self.abandon()
            return self._trip(), Signal.NONE
        if slots & IDENTITY_SLOTS:
            return self.verify_identity(act.slots)
        if act.kind is ActKind.CHECK and self._about((act,)) is None:
            return self._next(reading)
        if self._open() and act.kind is not ActKind.CHECK:
            if self.asked(f"detail:{self._focus()}"):
                return self.abandon()
            return self._state(self._focus()), Signal.NONE
        return self._next(reading)
