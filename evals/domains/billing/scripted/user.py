"""`sandbox/scripted` for billing: a customer who follows their scenario.

They read the agent's message by what it asks and the entities it names (the engine's
`UtteranceReader` with billing's entities, `vocab.READER`), not by the reference agent's
phrases, in English or Chinese. They give the identity fields asked for (email, or full name
and billing postcode — a wrong postcode first when the scenario says so, corrected once the
agent repeats it), describe a charge by what they know of it (date, amount, merchant, card
digits; never an id), and say yes to a proposal whose action and amounts match what they want
(otherwise they correct it: another amount, currency or merchant). They know what they want, not what the policy allows: a proposal
the policy forbids gets the same yes, and the guard and the oracle judge it. They accept a
refusal (a reason makes it settled; without one they ask why once) and a transfer, and pursue
every request before saying goodbye. The persona (the engine's ScriptedUserBase) decides how
they say it and when they give up.
"""

from __future__ import annotations

from typing import Any

from evals.domains.billing.scripted import vocab
from evals.domains.billing.scripted.customer_phrases import PHRASES
from evals.engine.messages import Signal
from evals.engine.persona import Level
from evals.engine.sandbox.request_user import RequestListUser
from evals.engine.understanding.utterances import Act, ActKind, Reading

# The reader's action -> the customer's requests it can be about.
ACTION_INTENTS = {
    "refund": ("refund", "repeat"),
    "submit": ("refund", "repeat"),
    "update": ("email",),
    "change_address": ("email",),
    "handoff": ("fraud",),
    "transfer": ("fraud",),
}
IDENTITY_SLOTS = {"email", "name", "zip"}
CHARGE_SLOTS = {"charge", "date", "amount", "card_last4", "merchant", "description", "item"}


class BillingScriptedUser(RequestListUser):
    reader = vocab.READER
    PHRASES = PHRASES

    # -- what the customer says ----------------------------------------------------------

    def _charge(self, r: dict[str, Any]) -> str:
        return self.say(
            "charge",
            date=r["date"],
            money=_money(r),
            merchant=r["merchant"],
            last4=r["last4"],
        )

    def _state(self, i: int) -> str:
        self.stated.add(i)
        r = self.requests[i]
        intent = r["intent"]
        if intent == "email":
            return self.say("email_change", email=r["new_email"])
        if intent == "fraud":
            return self.say(
                "fraud", date=r["date"], money=_money(r), merchant=r["merchant"], last4=r["last4"]
            )
        if intent == "repeat":
            return self.say(
                "repeat", date=r["date"], money=_money(r), merchant=r["merchant"], refund=_refund(r)
            )
        return self._refund(r)

    def _refund(self, r: dict[str, Any]) -> str:
        whole = r["refund"] == r["amount"] and "refund_currency" not in r
        ask = self.say("ask_refund_all" if whole else "ask_refund", refund=_refund(r))
        extras = [self.say(k) for k in ("partner", "earlier", "bank") if r.get(k)]
        return self.join(self._charge(r), self.say(f"why_{r['why']}"), ask.strip(), *extras)

    def _identity(self, slots: tuple[str, ...] = ()) -> str:
        """The identity fields asked for (none: the customer's choice), from what the customer
        knows: one who does not remember their email says so."""
        ident = self.identity
        by_name = {"name", "zip"} & set(slots)
        if ident["gives"] == "email" and ("email" in slots or not by_name):
            return self.say("email", email=ident["email"])
        prefix = self.say("forgot_email") if slots == ("email",) else ""
        return prefix + self._name_and_postcode()

    def _name_and_postcode(self) -> str:
        ident = self.identity
        postcode = self.as_given(
            ident["postcode"], wrong=ident.get("wrong_postcode") or "", slip=_postcode_slip
        )
        values = {"first": ident["first_name"], "last": ident["last_name"], "postcode": postcode}
        if self.persona.incoherence is Level.HIGH:
            return self.say("name_postcode_incoherent", **values)
        return self.say("name_postcode", **values)

    # -- answering the agent -------------------------------------------------------------

    def _about(self, act: Act, *, settles: bool = False) -> int | None:
        """The open request an act concerns: by its action, else by the entities it names.
        An act that `settles` one (done, refused) must not name other values than its own."""
        intents = ACTION_INTENTS.get(act.action, ())
        by_action = [
            i
            for i in self._open()
            if self.requests[i]["intent"] in intents
            and not (settles and self._compare(self.requests[i], act) == "wrong")
        ]
        named = [i for i in by_action if self._named(self.requests[i], act)]
        if named or by_action:
            return (named or by_action)[0]
        for i in self._open():
            if self._named(self.requests[i], act):
                return i
        return None

    def _named(self, r: dict[str, Any], act: Act) -> bool:
        """Whether the act names a value of request `r` (its amounts, its new email)."""
        if r["intent"] == "email":
            return r["new_email"] in act.values("email")
        money = act.values("money")
        return _refund(r) in money or _money(r) in money

    def _compare(self, r: dict[str, Any], act: Act) -> str:
        """A proposal against what the customer wants: "yes" or "wrong" (another amount,
        currency or address than theirs)."""
        if r["intent"] == "email":
            emails = act.values("email")
            return "yes" if r["new_email"] in emails else "wrong"
        if r["intent"] == "fraud":
            return "wrong"
        # A proposal naming another merchant is about another charge, whatever its amount.
        merchants = set(vocab.MERCHANT.findall(act.text))
        if merchants and r["merchant"] not in merchants:
            return "wrong"
        money = [m for m in act.values("money") if m != _money(r)]
        return "yes" if not money or _refund(r) in money else "wrong"

    def _go_ahead(self, act: Act, reading: Reading) -> str:
        about, act = self._proposed(act, reading)
        if about is None:
            return self._decline()
        if self._compare(self.requests[about], act) == "yes":
            self.confirmed = about
            return self._affirm(about)
        return self._decline(about)

    def _proposed(self, act: Act, reading: Reading) -> tuple[int | None, Act]:
        about = self._about(act)
        if about is None or not act.entities:
            whole = Act(act.kind, act.action, entities=reading.entities, text=reading.text)
            about = self._about(whole) if about is None else about
            act = whole
        return about, act

    def _settle(self, reading: Reading) -> tuple[str, Signal] | None:
        """Take in what the agent says it did or refused: those requests are settled. A reply
        when the customer objects (a yes the agent did not act on, a refusal without a
        reason)."""
        question = reading.first(ActKind.CONFIRM)
        proposed = self._proposed(question, reading)[0] if question is not None else None
        self.take_done(reading, proposed, lambda act: self._about(act, settles=True))
        return self.take_refusal(
            reading,
            lambda act: self._about(act, settles=True),
            first_only=True,
        )

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        low = agent_text.lower()
        reading = vocab.READER.read(agent_text)
        correction = self.correct_mistake(lambda wrong: wrong.lower() in low)
        if correction is not None:
            return correction
        if reading.has(ActKind.HANDOFF):
            self.finished = True
            return self.say("transfer_thanks"), Signal.STOP
        objection = self._settle(reading)
        if objection is not None:
            return objection
        confirm = reading.first(ActKind.CONFIRM)
        if confirm is not None:
            return self._go_ahead(confirm, reading), Signal.NONE
        # A question about the charge first: "the last four digits of the card" is not an
        # identity question.
        for ask in reading.of(ActKind.ASK):
            if CHARGE_SLOTS & set(ask.slots):
                return self._detail(ask)
        for kind in (ActKind.VERIFY, ActKind.ASK, ActKind.CHOICE, ActKind.CHECK):
            act = reading.first(kind)
            if act is not None:
                return self._answer(act, reading)
        missing = reading.first(ActKind.NOT_FOUND)
        if missing is not None and {"account", "email", "name", "zip"} & set(missing.slots):
            return self.verify_identity(missing.slots)
        return self._next(reading)

    def _answer(self, act: Act, reading: Reading) -> tuple[str, Signal]:
        if act.kind is ActKind.CHECK:
            if self._about(act) is not None:
                return self._go_ahead(act, reading), Signal.NONE
            if any(e.kind in ("email", "date") for e in act.entities):
                return self.say("check_yes"), Signal.NONE
            return self._next(reading)
        if act.kind is ActKind.VERIFY or IDENTITY_SLOTS & set(act.slots):
            return self.verify_identity(act.slots)
        return self._detail(act)

    def _detail(self, act: Act) -> tuple[str, Signal]:
        """The fact asked (a charge's details, an amount, an email), about the request it
        concerns."""
        slots = set(act.slots)
        open_reqs = self._open()
        if "email" in slots:
            about = [i for i in open_reqs if self.requests[i]["intent"] == "email"]
            if about:
                if self.asked("new_email"):
                    return self.abandon()
                return self.say(
                    "the_email", email=self.requests[about[0]]["new_email"]
                ), Signal.NONE
        about = [i for i in open_reqs if self.requests[i]["intent"] != "email"]
        if about and (slots & CHARGE_SLOTS):
            r = self.requests[about[0]]
            if slots == {"amount"} and r["intent"] != "fraud":
                if self.asked("amount"):
                    return self.abandon()
                return self.say("the_amount", refund=_refund(r)), Signal.NONE
            if self.asked("charge"):
                return self.abandon()
            return self._state(self.requests.index(r)), Signal.NONE
        return self._unsure()


def _postcode_slip(postcode: str) -> str:
    """A confused customer's slip in its postcode: the last digit off by three."""
    return postcode[:-1] + str((int(postcode[-1]) + 3) % 10)


def _money(r: dict[str, Any]) -> str:
    """The charge's amount as the reader writes money: "84.50 EUR"."""
    return f"{r['amount']} {r['currency']}"


def _refund(r: dict[str, Any]) -> str:
    """The refund the customer wants, in the currency they want it: "21.12 EUR"."""
    return f"{r['refund']} {r.get('refund_currency', r['currency'])}"
