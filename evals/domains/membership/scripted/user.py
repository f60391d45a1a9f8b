"""`sandbox/scripted` for membership: a member who follows their scenario.

They read the agent's message by what it asks and the entities it names (the engine's
`UtteranceReader` with membership's entities, `vocab.READER`), not by the reference agent's
phrases, in English or Chinese. They give the identity fields asked for (email, or member
number and date of birth — a wrong date first when the scenario says so, corrected once the
agent repeats it), answer the slot or choice asked, state their requests one at a time or all
at once, and say yes to a proposal whose action and entities match what they want (otherwise
they correct it, or decline a fee they will not pay). They know what they want, not what the
policy allows: a proposal the policy forbids gets the same yes, and the guard and the oracle
judge it. They accept a refusal (a reason makes it settled; without one they ask why once)
and a transfer, and pursue every request before saying goodbye. When they cannot tell what is
asked they say so, which costs patience like a repeated question. The persona (the engine's
ScriptedUserBase) decides how they say it and when they give up.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from evals.domains.membership.scripted import vocab
from evals.domains.membership.scripted.customer_phrases import PHRASES
from evals.engine.messages import Signal
from evals.engine.persona import Level
from evals.engine.sandbox.request_user import RequestListUser, dob_slip
from evals.engine.understanding.utterances import Act, ActKind, Reading, option_key

# The reader's action -> the member's request it is about.
ACTION_INTENT = {
    "change_plan": "plan_change",
    "upgrade": "plan_change",
    "downgrade": "plan_change",
    "freeze": "freeze",
    "unfreeze": "unfreeze",
    "cancel": "cancel",
    "waive": "waive",
    "refund": "refund",
    "handoff": "dispute",
    "transfer": "dispute",
}
IDENTITY_SLOTS = {"email", "member_id", "membership_id", "dob", "name"}
CHARGE_SLOTS = {"charge", "date", "invoice_id", "amount", "description", "item", "reason"}
# "from the Plus plan to the Premium plan": the plan a change goes *to*.
TO_PLAN = re.compile(r"(?:\bto|\binto|\bonto|为|成|到|至)\s*(?:the\s+)?$", re.I)
NUMBER = re.compile(r"\d|[一二两三四五六七八九十]")


class MembershipScriptedUser(RequestListUser):
    reader = vocab.READER
    PHRASES = PHRASES

    # -- what the member says ------------------------------------------------------------

    def _months(self, r: dict[str, Any]) -> str:
        months = r["months"]
        right = self.say("months" if months > 1 else "month", n=months)
        if right not in self.fixed and not self.mistakes and self.confused():
            wrong_n = 3 if months != 3 else 2
            wrong = self.say("months", n=wrong_n)
            self.mistakes[wrong] = right
            return wrong
        return right

    def _period(self, r: dict[str, Any]) -> str:
        """The invoice month: its name in English, its number in Chinese."""
        name = r["period"]
        return self.say("period", name=name, number=int(vocab.MONTH_NAMES[name.lower()]))

    def _state(self, i: int) -> str:
        self.stated.add(i)
        r = self.requests[i]
        intent = r["intent"]
        if intent == "plan_change":
            verb = self.say("verb_upgrade" if r["direction"] == "upgrade" else "verb_downgrade")
            return self.say("plan_change", verb=verb, plan=r["plan_name"])
        if intent == "freeze":
            if self.chance(0.3):
                return self.say("freeze_open")
            # Every alternative is filled in before one is picked, so each reads the months
            # (and may slip on them) on its own.
            return self.pick([o.format(months=self._months(r)) for o in self.options("freeze")])
        if intent == "unfreeze":
            return self.say("unfreeze")
        if intent == "cancel":
            if r["accept_fee"]:
                text = self.say("cancel")
                return text + (self.say("fee_ok") if self.chance(0.4) else "")
            return self.say("cancel_no_fee")
        if intent == "waive":
            return self.say("late_fee", money=_money(r), period=self._period(r)) + self.say(
                "waive_ask"
            )
        if intent == "refund":
            return self._refund(r)
        if intent == "dispute":
            if r["what"] == "late_fee":
                return self.say("dispute_late_fee", money=_money(r), period=self._period(r))
            return self.say("dispute_cancel_fee")
        return self.say(f"balance_{r['kind']}")

    def _refund(self, r: dict[str, Any]) -> str:
        money, period = _money(r), self._period(r)
        if r["what"] == "duplicate":
            return self.say("refund_duplicate", money=money, period=period)
        if r["what"] == "class":
            text = self.say("refund_class", money=money, period=period)
            if r.get("claim") == "checkins":
                return text + self.say("claim_checkins")
            return text + self.say("claim_pack")
        return self.say("refund_dues", money=money, period=period)

    def _identity(self, slots: tuple[str, ...] = ()) -> str:
        """The identity fields asked for (`slots`, the reader's; none: the member's choice),
        from what the member knows: one who does not remember their email says so."""
        ident = self.identity
        by_number = {"member_id", "membership_id", "dob"} & set(slots)
        if ident["gives"] == "email" and ("email" in slots or not by_number):
            return self.say("email", email=ident["email"])
        prefix = self.say("forgot_email") if slots == ("email",) else ""
        return prefix + self._number_and_dob()

    def _number_and_dob(self) -> str:
        ident = self.identity
        dob = self.as_given(ident["dob"], wrong=ident.get("wrong_dob") or "", slip=dob_slip)
        number = ident["member_number"]
        if self.persona.incoherence is Level.HIGH:
            return self.say("number_dob_incoherent", dob=dob, number=number)
        return self.say("number_dob", number=number, dob=dob)

    # -- answering the agent -------------------------------------------------------------

    def _about(self, act: Act, *, settles: bool = False) -> int | None:
        """The open request an act concerns: by its action, else by the entities it names.
        An act that `settles` one (done, refused) must not name other values than its own."""
        intent = ACTION_INTENT.get(act.action, "")
        by_action = [
            i
            for i in self._open()
            if self.requests[i]["intent"] == intent
            and not (settles and self._compare(self.requests[i], act) == "wrong")
        ]
        if by_action:
            return by_action[0]
        for i in self._open():
            if self._named(self.requests[i], act):
                return i
        return None

    def _named(self, r: dict[str, Any], act: Act) -> bool:
        """Whether the act names a value of request `r` (its plan, months, amount, entitlement)."""
        intent = r["intent"]
        if intent == "plan_change":
            return r["plan"] in act.values("plan")
        if intent == "freeze":
            return f"P{r['months']}M" in act.values("duration")
        if intent in ("waive", "refund"):
            return _money(r) in act.values("money")
        if intent == "balance":
            return r["kind"] in act.values("entitlement")
        return False

    def _compare(self, r: dict[str, Any], act: Act) -> str:
        """A proposal against what the member wants: "yes", "fee" (a cancellation fee they
        will not pay) or "wrong" (another plan, duration or amount than theirs)."""
        intent = r["intent"]
        if intent == "plan_change":
            target = _target_plan(act.text)
            return "yes" if target in ("", r["plan"]) else "wrong"
        if intent == "freeze":
            durations = act.values("duration")
            return "yes" if not durations or f"P{r['months']}M" in durations else "wrong"
        if intent == "cancel":
            fees = [_amount(m) for m in act.values("money")]
            return "fee" if not r["accept_fee"] and any(fees) else "yes"
        if intent in ("waive", "refund"):
            money = act.values("money")
            return "yes" if not money or _money(r) in money else "wrong"
        return "yes" if intent != "balance" else "wrong"

    def _go_ahead(self, act: Act, reading: Reading) -> str:
        """The answer to a proposal: yes when its action and entities match a request, else
        what the member wants instead (or no, to a fee they will not pay)."""
        about, act = self._proposed(act, reading)
        if about is None:
            return self._decline()
        verdict = self._compare(self.requests[about], act)
        if verdict == "yes":
            self.confirmed = about
            return self._affirm(about)
        if verdict == "fee":
            self.done.add(about)
            return self.say("no_fee")
        return self._decline(about)

    def _proposed(self, act: Act, reading: Reading) -> tuple[int | None, Act]:
        """The request a go-ahead question is about, and the act to compare with it: the
        question's own clauses, else the whole message (a summary may name what it acts on
        outside the question's clauses)."""
        about = self._about(act)
        if about is None:
            act = Act(act.kind, act.action, entities=reading.entities, text=reading.text)
            about = self._about(act)
        return about, act

    def _settle(self, reading: Reading) -> tuple[str, Signal] | None:
        """Take in what the agent says it did, refused or told: those requests are settled.
        A reply when the member objects (a yes the agent did not act on, a refusal without a
        reason)."""
        question = reading.first(ActKind.CONFIRM)
        # A summary in the past tense ("your plan switches to Plus") is part of the proposal.
        proposed = self._proposed(question, reading)[0] if question is not None else None
        self.take_done(reading, proposed, lambda act: self._about(act, settles=True))
        for act in reading.acts:
            if act.kind in (ActKind.CHOICE, ActKind.ASK):
                continue
            for i in self._open():
                r = self.requests[i]
                if r["intent"] == "balance" and self._named(r, act) and NUMBER.search(act.text):
                    self.done.add(i)
        return self.take_refusal(reading, lambda act: self._about(act, settles=True))

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        low = agent_text.lower()
        reading = vocab.READER.read(agent_text)
        correction = self.correct_mistake(
            lambda wrong: wrong.lower() in low or _same_months(wrong, reading)
        )
        if correction is not None:
            return correction
        if reading.has(ActKind.HANDOFF):
            self.finished = True
            return self.say("transfer_thanks"), Signal.STOP
        objection = self._settle(reading)
        if objection is not None:
            return objection
        for kind in (ActKind.CONFIRM, ActKind.VERIFY, ActKind.ASK, ActKind.CHOICE, ActKind.CHECK):
            act = reading.first(kind)
            if act is not None:
                return self._answer(act, reading)
        if reading.has(ActKind.NOT_FOUND):
            act = reading.first(ActKind.NOT_FOUND)
            assert act is not None
            if {"account", "member_id", "email", "dob"} & set(act.slots):
                return self.verify_identity(act.slots)
        return self._next(reading)

    def _answer(self, act: Act, reading: Reading) -> tuple[str, Signal]:
        if act.kind is ActKind.CONFIRM:
            return self._go_ahead(act, reading), Signal.NONE
        if act.kind is ActKind.CHECK:
            # A yes/no question: about a request (a go-ahead), about their details, or about
            # nothing they can name ("Can I help with something else?": what comes next).
            if self._about(act) is not None:
                return self._go_ahead(act, reading), Signal.NONE
            if any(e.kind in ("email", "member_id", "date") for e in act.entities):
                return self.say("check_yes"), Signal.NONE
            return self._next(reading)
        if act.kind is ActKind.VERIFY or IDENTITY_SLOTS & set(act.slots):
            return self.verify_identity(act.slots)
        return self._detail(act)

    def _detail(self, act: Act) -> tuple[str, Signal]:
        """The slot or the choice asked, about the request it concerns."""
        slots = set(act.slots)
        wanted = [
            ("plan", "plan", ("plan_change",), {"plan"}),
            ("months", "months", ("freeze",), {"duration", "quantity"}),
            ("kind", "kind", ("balance",), {"entitlement"}),
            ("charge", "charge", ("refund", "waive", "dispute"), CHARGE_SLOTS),
        ]
        options = " | ".join(act.options)
        for kind, fact, intents, slot_names in wanted:
            about = [i for i in self._open() if self.requests[i]["intent"] in intents]
            if not about:
                continue
            r = self.requests[about[0]]
            if slots & slot_names or (options and self._offers(r, act)):
                if self.asked(kind):
                    return self.abandon()
                return self._fact(fact, r), Signal.NONE
        return self._unsure()

    def _offers(self, r: dict[str, Any], act: Act) -> bool:
        """Whether a choice's options include the member's own value."""
        intent = r["intent"]
        if intent == "plan_change":
            return any(r["plan"] in option_key(o) for o in act.options)
        if intent == "balance":
            return r["kind"] in act.values("entitlement")
        if intent == "freeze":
            return any(str(r["months"]) in o for o in act.options)
        return False

    def _fact(self, kind: str, r: dict[str, Any]) -> str:
        if kind == "plan":
            return self.say("the_plan", plan=r.get("plan_name", "Premium"))
        if kind == "months":
            months = self._months(r) if "months" in r else self.say("month", n=1)
            return self.say("the_months", months=months)
        if kind == "charge":
            return (
                self._refund(r) if r["intent"] == "refund" else self._state(self.requests.index(r))
            )
        label = self.say(f"label_{r.get('kind')}" if r.get("kind") else "label_guest_pass")
        return self.say("the_label", label=label)


def _same_months(wrong: str, reading: Reading) -> bool:
    """Whether the agent names the wrong duration the member gave, in whatever words ("3
    months", "3 个月": the reader's "P3M")."""
    number = re.match(r"(\d+) ", wrong)
    return number is not None and f"P{number.group(1)}M" in reading.values("duration")


def _money(r: dict[str, Any]) -> str:
    return f"{r['amount']} {r['currency']}"


def _amount(money: str) -> Decimal:
    try:
        return Decimal(money.split()[0])
    except (InvalidOperation, IndexError):
        return Decimal(0)


def _target_plan(text: str) -> str:
    """The plan a proposed change goes to: the one named after "to" ("from Plus to Premium"),
    else the last one named; "" when none is."""
    found = [
        (m, vocab.PLAN_NAMES.get(m.group(0), m.group(0).lower()))
        for m in vocab.PLAN_PATTERN.finditer(text)
    ]
    for m, plan in found:
        if TO_PLAN.search(text[max(0, m.start() - 12) : m.start()]):
            return plan
    return found[-1][1] if found else ""
