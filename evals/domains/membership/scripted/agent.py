"""`sandbox/reference` for membership: a rule-based agent that follows policy.md.

It learns everything from the conversation: the member's text (parsed with the shared
vocabulary) and the results of its own tool calls. It verifies identity, looks up, quotes fees,
applies the rules it was told (entitlements come from list_entitlements only, never from
check-ins), summarises the exact action, asks for a yes, writes, notifies and records, reports,
refuses what the policy forbids and hands disputes to a human. It handles one request at a time
and asks for each missing fact in its own question — its slowness with hurried members is real.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from evals.domains.membership.scripted import vocab as v
from evals.engine.messages import Message
from evals.engine.sandbox import ReferenceAgentBase

MAX_FREEZES = 2
MAX_WAIVERS = 1
TOPICS = {
    "change_plan": "plan_change",
    "freeze_membership": "freeze",
    "unfreeze_membership": "unfreeze",
    "cancel_membership": "cancellation",
    "waive_fee": "fee_waiver",
    "request_refund": "refund",
}
DONE_TEXT = {
    "change_plan": "membership {membership_id} is now on the {plan} plan{money}.",
    "freeze_membership": "membership {membership_id} is frozen for {months} month{plural}; the freeze fee of "
    "{freeze_fee} {currency} is billed.",
    "unfreeze_membership": "membership {membership_id} is active again.",
    "cancel_membership": "membership {membership_id} is cancelled; cancellation fee {fee} {currency}.",
    "waive_fee": "the late fee of {waived} {currency} on invoice {invoice_id} is waived.",
    "request_refund": "a refund request of {amount} {currency} on invoice {invoice_id} was submitted; it "
    "waits for approval by a human approver.",
}


@dataclass
class Req:
    intent: str
    text: str = ""
    plan: str = ""
    months: int = 0
    period: str = ""
    done: bool = False
    asked: set[str] = field(default_factory=set)


class MembershipReferenceAgent(ReferenceAgentBase):
    def __init__(self, *, domain: Any, params: Any, seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.email = ""
        self.number = ""
        self.dob = ""
        self.tried: set[str] = set()
        self.failed = ""
        self.member_id = ""
        self.ms: dict[str, Any] | None = None
        self.invoices: list[dict[str, Any]] | None = None
        self.entitlements: list[dict[str, Any]] | None = None
        self.quotes: dict[str, dict[str, Any]] = {}
        self.reqs: list[Req] = []
        self.focus: Req | None = None
        self.active: Req | None = None
        self.pool = ""
        self.notes: list[str] = []
        self.explain = False
        self.followup: list[tuple[str, dict[str, Any]]] = []
        self.report = ""

    @classmethod
    def factory(cls, *, domain: Any, params: Any, seed: int) -> MembershipReferenceAgent:
        return cls(domain=domain, params=params, seed=seed)

    # -- reading the member --------------------------------------------------------------

    def has_new_facts(self, text: str) -> bool:
        return bool(
            v.MEMBER_NUMBER.search(text)
            or v.DOB.search(text)
            or v.EMAIL.search(text)
            or v.PLAN.search(text)
            or v.months_in(text)
            or v.intent_of(text)
        )

    def declined(self, name: str, args: dict[str, Any]) -> None:
        if self.active is not None and not self.has_new_facts(self.last_user):
            self.active.done = True
            self.notes.append("Okay, I won't do that.")

    def observe_user(self, text: str) -> None:
        if "why" in text.lower() or "为什么" in text:
            self.explain = True
        clean = v.clean(text)
        email = v.EMAIL.search(clean)
        if email:
            self.email = email.group(0).rstrip(".").lower()
        number = v.MEMBER_NUMBER.search(clean)
        if number:
            self.number = number.group(1)
        dob = v.DOB.search(clean)
        if dob:
            self.dob = dob.group(1)
        for sentence in v.SENTENCE.split(clean):
            intent = v.intent_of(sentence)
            req = self._request(intent) if intent else (self.active or self.focus)
            if req is None:
                self.pool += " " + sentence
                continue
            self._absorb(req, sentence)

    def _request(self, intent: str) -> Req:
        for r in self.reqs:
            if r.intent == intent and not r.done:
                self.focus = r
                return r
        r = Req(intent)
        if self.pool:
            self._absorb(r, self.pool)
            self.pool = ""
        self.reqs.append(r)
        self.focus = r
        return r

    def _absorb(self, r: Req, sentence: str) -> None:
        r.text += " " + sentence
        plan = v.PLAN.search(sentence)
        if plan:
            r.plan = plan.group(1).lower()
        months = v.months_in(sentence)
        if months:
            r.months = months
        period = v.period_in(sentence)
        if period:
            r.period = period

    # -- reading tool results ------------------------------------------------------------

    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        data: Any = (
            None if error else json.loads(content) if content.startswith(("{", "[")) else content
        )
        if name.startswith("find_member"):
            if not error:
                self.member_id = data["member_id"]
            else:
                self.failed = (
                    f"{v.NOT_FOUND} a member with the email {args.get('email')}."
                    if name == "find_member_by_email"
                    else f"{v.NOT_FOUND} a member with member number {args.get('member_number')} and date "
                    f"of birth {args.get('date_of_birth')}."
                )
        elif name == "get_membership" and not error:
            self.ms = data
        elif name == "list_invoices" and not error:
            self.invoices = data
        elif name == "list_entitlements" and not error:
            self.entitlements = data
        elif name.startswith("quote_") and not error:
            self.quotes[f"{name}:{args.get('new_plan_id', '')}{args.get('months', '')}"] = data
        elif name == "notify_customer":
            pass
        elif name == "add_note":
            self.notes.append(self.report)
        elif name in TOPICS and self.active is not None:
            self.active.done = True
            if error:
                self.notes.append(
                    f"I'm sorry, that did not go through: {content.removeprefix('Error: ')}"
                )
                return
            reference = (
                data.get("invoice_id")
                if name in ("waive_fee", "request_refund")
                else data["membership_id"]
            )
            topic = TOPICS[name]
            base = {"member_id": self.member_id, "topic": topic, "reference": reference}
            self.followup = [
                ("notify_customer", base),
                ("add_note", {**base, "text": self._note(name, data)}),
            ]
            self.report = f"{v.DONE} {self._done_text(name, data)}"
            self.ms = self.invoices = None
            self.quotes.clear()

    def _done_text(self, name: str, data: dict[str, Any]) -> str:
        money = ""
        if name == "change_plan":
            money = (
                f"; {data['charged']} {data['currency']} is charged now"
                if "charged" in data
                else f"; {data['credited']} {data['currency']} is credited to your account"
            )
        plural = "s" if data.get("months", 1) != 1 else ""
        return DONE_TEXT[name].format(money=money, plural=plural, **data)

    def _note(self, name: str, data: dict[str, Any]) -> str:
        return f"Member asked by chat; {name.replace('_', ' ')} done: " + json.dumps(
            data, sort_keys=True
        )

    # -- deciding ------------------------------------------------------------------------

    def say(self, text: str) -> Message:
        if self.notes:
            text = " ".join([*self.notes, text])
            self.notes = []
        return super().say(text)

    def plan(self) -> Message:
        if not self.member_id:
            return self._authenticate()
        if self.followup:
            name, args = self.followup.pop(0)
            return self.call(name, **args)
        if self.ms is None:
            return self.call("get_membership", member_id=self.member_id)
        open_reqs = self.order_requests([r for r in self.reqs if not r.done])
        self.active = None
        if not open_reqs:
            return self.say(v.ANYTHING_ELSE if self.reqs else v.HOW_CAN_I_HELP)
        self.active = open_reqs[0]
        return self._handle(open_reqs[0])

    def _authenticate(self) -> Message:
        if self.email and f"e:{self.email}" not in self.tried:
            self.tried.add(f"e:{self.email}")
            return self.call("find_member_by_email", email=self.email)
        if self.number and self.dob and f"n:{self.number}/{self.dob}" not in self.tried:
            self.tried.add(f"n:{self.number}/{self.dob}")
            return self.call(
                "find_member_by_number", member_number=self.number, date_of_birth=self.dob
            )
        prefix = f"{self.failed} " if self.failed else ""
        self.failed = ""
        if self.explain:
            self.explain = False
            prefix += v.EXPLAIN_IDENTITY + " "
        return self.say(prefix + v.ASK_IDENTITY)

    def _ask(self, r: Req, what: str, text: str) -> Message:
        r.asked.add(what)
        return self.say(text)

    def _refuse(self, r: Req, why: str) -> Message:
        r.done = True
        return self.say(f"{v.SORRY_CANT} {why} {v.ANYTHING_ELSE}")

    def _quote(self, name: str, **args: Any) -> Message | dict[str, Any]:
        key = f"{name}:{args.get('new_plan_id', '')}{args.get('months', '')}"
        if key not in self.quotes:
            return self.call(name, **args)
        return self.quotes[key]

    def _handle(self, r: Req) -> Message:
        assert self.ms is not None
        if r.intent in ("waive", "refund", "dispute") and self.invoices is None:
            return self.call("list_invoices", member_id=self.member_id)
        if r.intent in ("refund", "balance") and self.entitlements is None:
            return self.call("list_entitlements", member_id=self.member_id)
        handler = getattr(self, f"_{r.intent}")
        return handler(r)

    def _plan_change(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        if not r.plan:
            return self._ask(r, "plan", v.ASK_PLAN)
        current = ms["plan"]["plan_id"]
        if r.plan == current:
            r.done = True
            return self.say(f"You are already on the {ms['plan']['name']} plan. {v.ANYTHING_ELSE}")
        if ms["status"] != "active":
            return self._refuse(
                r,
                f"change the plan of membership {ms['membership_id']}: it is "
                f"{ms['status'].replace('_', ' ')}, and only active memberships can change plan.",
            )
        quote = self._quote(
            "quote_plan_change", membership_id=ms["membership_id"], new_plan_id=r.plan
        )
        if isinstance(quote, Message):
            return quote
        cur = quote["currency"]
        if quote["direction"] == "downgrade" and ms["commitment_months_left"] > 0:
            return self._refuse(
                r,
                f"downgrade membership {ms['membership_id']}: you are inside your commitment "
                f"period until {ms['commitment_end']}, and downgrades are only possible after it.",
            )
        money = (
            f"A pro-rated charge of {quote['prorated_charge_now']} {cur} is billed now"
            if quote["direction"] == "upgrade"
            else f"A pro-rated credit of {quote['prorated_credit']} {cur} goes to your account"
        )
        return self.propose(
            "change_plan",
            {"membership_id": ms["membership_id"], "new_plan_id": r.plan},
            f"To confirm: I will change membership {ms['membership_id']} from the {ms['plan']['name']} plan to "
            f"the {r.plan.capitalize()} plan ({r.plan}). {money}; the new monthly fee is "
            f"{quote['new_monthly_fee']} {cur}.",
        )

    def _freeze(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        if ms["status"] != "active":
            return self._refuse(
                r,
                f"freeze membership {ms['membership_id']}: it is {ms['status'].replace('_', ' ')}, "
                "and only active memberships can be frozen.",
            )
        if ms["freezes_used_this_year"] >= MAX_FREEZES:
            return self._refuse(
                r,
                f"freeze membership {ms['membership_id']}: you have already used the "
                f"{MAX_FREEZES} freezes allowed per calendar year.",
            )
        if not r.months:
            return self._ask(r, "months", v.ASK_MONTHS)
        if r.months > 3:
            r.months = 0
            return self._ask(r, "months", "A freeze lasts at most 3 months. " + v.ASK_MONTHS)
        quote = self._quote("quote_freeze", membership_id=ms["membership_id"], months=r.months)
        if isinstance(quote, Message):
            return quote
        return self.propose(
            "freeze_membership",
            {"membership_id": ms["membership_id"], "months": r.months},
            f"To confirm: I will freeze membership {ms['membership_id']} for {r.months} "
            f"month{'s' if r.months != 1 else ''}. The freeze fee "
            f"of {quote['freeze_fee']} {quote['currency']} is billed.",
        )

    def _unfreeze(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        if ms["status"] != "frozen":
            r.done = True
            return self.say(
                f"Membership {ms['membership_id']} is {ms['status'].replace('_', ' ')}, not frozen. "
                f"{v.ANYTHING_ELSE}"
            )
        return self.propose(
            "unfreeze_membership",
            {"membership_id": ms["membership_id"]},
            f"To confirm: I will unfreeze membership {ms['membership_id']} so it is active again from today, "
            "at no charge.",
        )

    def _cancel(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        if ms["status"] == "cancelled":
            r.done = True
            return self.say(
                f"Membership {ms['membership_id']} is already cancelled. {v.ANYTHING_ELSE}"
            )
        quote = self._quote("quote_cancellation", membership_id=ms["membership_id"])
        if isinstance(quote, Message):
            return quote
        fee, cur = quote["cancellation_fee"], quote["currency"]
        if quote["in_commitment"] and v.NO_FEE.search(r.text):
            return self._refuse(
                r,
                f"cancel without the fee: you are inside your commitment until "
                f"{quote['commitment_end']}, so the cancellation fee of {fee} {cur} applies and "
                "I cannot waive it.",
            )
        why = (
            f"You are inside your commitment until {quote['commitment_end']}, so the cancellation fee is "
            f"{fee} {cur}."
            if quote["in_commitment"]
            else f"Your commitment has ended, so the fee is {fee} {cur}."
        )
        return self.propose(
            "cancel_membership",
            {"membership_id": ms["membership_id"], "fee": fee},
            f"To confirm: I will cancel membership {ms['membership_id']}. {why}",
        )

    def _late_fee(self) -> tuple[dict[str, Any], dict[str, Any]] | None:
        assert self.invoices is not None
        for inv in self.invoices:
            for line in inv["lines"]:
                if line["kind"] == "late_fee" and not line["waived"] and inv["status"] != "paid":
                    return inv, line
        return None

    def _waive(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        found = self._late_fee()
        if found is None:
            r.done = True
            return self.say(f"{v.NOT_FOUND} an unpaid late fee on your invoices. {v.ANYTHING_ELSE}")
        inv, line = found
        if ms["late_fee_waivers_last_12_months"] >= MAX_WAIVERS:
            return self._refuse(
                r,
                f"waive the late fee on invoice {inv['invoice_id']}: a late fee can be waived "
                "once in 12 months, and you already had a waiver in the last 12 months.",
            )
        return self.propose(
            "waive_fee",
            {
                "invoice_id": inv["invoice_id"],
                "item_id": line["item_id"],
                "reason": "first late fee in 12 months",
            },
            f"To confirm: I will waive the late fee of {line['amount']} {inv['currency']} (line {line['item_id']}) "
            f"on invoice {inv['invoice_id']}.",
        )

    def _refund(self, r: Req) -> Message:
        assert self.invoices is not None and self.entitlements is not None
        what = (
            "duplicate"
            if v.DUPLICATE.search(r.text)
            else "class"
            if v.CLASS.search(r.text)
            else "dues"
        )
        if what == "dues" and not r.period:
            return self._ask(r, "charge", v.ASK_CHARGE)
        target = None
        for inv in self.invoices:
            for line in inv["lines"]:
                if (
                    (what == "duplicate" and line["duplicate_of"])
                    or (what == "class" and line["kind"] == "class_drop_in")
                    or (what == "dues" and line["kind"] == "dues" and inv["period"] == r.period)
                ):
                    target = target or (inv, line)
        if target is None:
            return self._ask(r, "charge", f"{v.NOT_FOUND} that charge. {v.ASK_CHARGE}")
        inv, line = target
        amount = Decimal(line["amount"])
        if what == "class":
            paid_pack = any(
                e["kind"] == "classes" and e["remaining"] > 0 for e in self.entitlements
            )
            over = amount if paid_pack else Decimal(0)
        elif what == "duplicate":
            over = amount
        else:
            over = max(Decimal(0), amount - Decimal(line["list_price"]))
        over -= sum(
            (
                Decimal(x["amount"])
                for x in inv["refund_requests"]
                if x["item_id"] == line["item_id"]
            ),
            Decimal(0),
        )
        if over <= 0 and what == "class":
            return self._refuse(
                r,
                f"refund the class drop-in on invoice {inv['invoice_id']}: you have no paid class "
                "entitlement. Check-ins are visit logs, not entitlements, so they do not cover a class.",
            )
        if over <= 0:
            return self._refuse(
                r,
                f"refund line {line['item_id']} on invoice {inv['invoice_id']}: it was charged "
                "correctly, so there is no overcharge to refund.",
            )
        text = line["amount"] if over == amount else str(over)
        cur = inv["currency"]
        return self.propose(
            "request_refund",
            {
                "invoice_id": inv["invoice_id"],
                "item_id": line["item_id"],
                "amount": text,
                "currency": cur,
                "reason": f"overcharge ({what})",
            },
            f"To confirm: I will request a refund of {text} {cur} for line {line['item_id']} "
            f"({line['description']}) on invoice {inv['invoice_id']}. A human approver must approve it.",
        )

    def _balance(self, r: Req) -> Message:
        assert self.entitlements is not None
        kinds = [
            ("guest_pass", v.GUEST, "guest passes"),
            ("pt_session", v.PT, "personal-training sessions"),
            ("classes", v.CLASS, "classes"),
        ]
        kind = next(((k, label) for k, pattern, label in kinds if pattern.search(r.text)), None)
        if kind is None:
            return self._ask(r, "kind", v.ASK_BALANCE)
        left = sum(e["remaining"] for e in self.entitlements if e["kind"] == kind[0])
        r.done = True
        self.notes.append(
            f"You have {left} {kind[1]} left (paid entitlements; check-ins are visits, not "
            "entitlements)."
        )
        return self.plan()

    def _dispute(self, r: Req) -> Message:
        ms = self.ms
        assert ms is not None
        reference = ms["membership_id"]
        if "late fee" in r.text.lower():
            found = self._late_fee()
            if found is not None:
                reference = found[0]["invoice_id"]
        r.done = True
        step = self.call(
            "transfer_to_human",
            category="dispute",
            summary=f"Member {self.member_id} disputes a charge: {r.text.strip()[:160]}",
            member_id=self.member_id,
            reference=reference,
        )
        return Message.assistant(
            f"I understand you dispute this charge; a colleague will review it. {v.TRANSFER}",
            step.tool_calls,
        )
