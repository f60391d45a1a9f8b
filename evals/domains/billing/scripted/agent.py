"""`sandbox/reference` for billing: a rule-based agent that follows policy.md.

It learns everything from the conversation: the customer's text (parsed with the shared
vocabulary) and the results of its own tool calls. It verifies identity, finds the charge by
what the customer knows, checks the policy's conditions on what find_charges shows (account
holder, chargeback, dispute window, fully refunded, a request already pending, currency,
refundable balance), rehearses the refund in the sandbox and reads the approver from the
rehearsal, summarises the exact refund, asks for a yes, sends it to that approver and tells
the customer who decides and how long it takes; it hands chargebacks and suspected fraud to
their teams. It handles one request at a time and asks for each missing fact.

Every sentence it says comes from one wording of `phrasings.PHRASINGS`, chosen by the param
`phrasing` ("en", the default, or a rewording such as "en-2", "en-3", "zh").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from evals.domains.billing.scripted import vocab
from evals.domains.billing.scripted.phrasings import PHRASINGS
from evals.engine.messages import Message
from evals.engine.sandbox.desk import DeskAgent, Request, tool_data

DISPUTE_WINDOW_DAYS = 120


@dataclass
class Req(Request):
    date: str = ""
    merchant: str = ""
    last4: str = ""
    charged: tuple[str, str] | None = None
    refund: tuple[str, str] | None = None
    new_email: str = ""
    charge: dict[str, Any] | None = None
    searched: str = ""


class BillingReferenceAgent(DeskAgent[Req]):
    DOMAIN = "billing"
    PHRASINGS = PHRASINGS
    # Its Chinese sentences are joined with a space, as its transcripts were measured.
    ZH_GAP = ZH_NOTES_GAP = " "

    def __init__(self, *, domain: Any, params: Any, seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.email = ""
        self.name: tuple[str, str] | None = None
        self.postcode = ""
        self.tried: set[str] = set()
        self.customer_id = ""
        self.profile: dict[str, Any] | None = None
        self.rehearsals: dict[tuple[str, str, str], dict[str, Any]] = {}

    def new_request(self, intent: str) -> Req:
        return Req(intent)

    def _within(self, approver: str) -> str:
        return self.t("within", days=vocab.DECISION_DAYS.get(approver, 2))

    # -- reading the customer ------------------------------------------------------------

    def has_new_facts(self, text: str) -> bool:
        return bool(
            vocab.EMAIL.search(text)
            or vocab.POSTCODE.search(text)
            or vocab.moneys(text)
            or vocab.DATE.search(text)
            or vocab.intent_of(text)
        )

    def observe_user(self, text: str) -> None:
        self.heard_why(text)
        clean = vocab.clean(text)
        name = vocab.NAME.search(clean)
        if name is None and not self.customer_id and vocab.BARE_POSTCODE.search(clean):
            name = vocab.LOOSE_NAME.search(clean)
        if name:
            self.name = (name.group(1), name.group(2))
        postcode = vocab.POSTCODE.search(clean) or (
            vocab.BARE_POSTCODE.search(clean) if self.name and not self.customer_id else None
        )
        if postcode:
            self.postcode = postcode.group(1)
        for sentence in vocab.SENTENCE.split(clean):
            intent = vocab.intent_of(sentence)
            email = vocab.EMAIL.search(sentence)
            if email and intent != "email":
                self.email = email.group(0).rstrip(".").lower()
            current = self.active or self.focus
            merchant = vocab.MERCHANT.search(sentence)
            if (
                not intent
                and current is not None
                and merchant is not None
                and current.merchant
                and current.merchant != merchant.group(1)
            ):
                intent = current.intent  # "Also, there's a charge from ...": another charge
            self.take(sentence, intent)

    def _request(self, intent: str, sentence: str) -> Req | None:
        focus = self.focus
        if (
            focus is not None
            and focus.intent == intent
            and not focus.done
            and vocab.MERCHANT.search(sentence) is None
        ):
            return focus  # "Please refund all of it": the charge just described
        return super()._request(intent, sentence)

    def same_request(self, r: Req, sentence: str) -> bool:
        # Two refunds of two charges are two requests: a sentence naming another merchant than
        # an open request's starts its own.
        merchant = vocab.MERCHANT.search(sentence)
        return merchant is None or not r.merchant or r.merchant == merchant.group(1)

    def _absorb(self, r: Req, sentence: str) -> None:
        r.text += " " + sentence
        date = vocab.DATE.search(sentence)
        if date:
            r.date = date.group(1)
        merchant = vocab.MERCHANT.search(sentence)
        if merchant:
            r.merchant = merchant.group(1)
        last4 = vocab.LAST4.search(sentence)
        if last4:
            r.last4 = last4.group(1)
        amounts = vocab.moneys(sentence)
        if r.intent == "email":
            # The new address is the one the request or the answer to "what is it?" names,
            # never the account's own email said to verify.
            email = vocab.EMAIL.search(sentence)
            if email and (vocab.intent_of(sentence) == "email" or "email" in r.asked):
                r.new_email = email.group(0).rstrip(".").lower()
            return
        if len(amounts) >= 2:
            r.charged, r.refund = amounts[0], amounts[-1]
        elif len(amounts) == 1:
            if _names_the_charge(sentence) or (r.charged is None and not _asks_refund(sentence)):
                r.charged = amounts[0]
            else:
                r.refund = amounts[0]

    # -- reading tool results ------------------------------------------------------------

    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        data = tool_data(content, error)
        r = self.active
        if name.startswith("find_customer"):
            if not error:
                self.customer_id = data["customer_id"]
            elif name == "find_customer_by_email":
                self.failed = self.t("not_found_email", email=args.get("email"))
            else:
                self.failed = self.t(
                    "not_found_name",
                    name=f"{args.get('first_name')} {args.get('last_name')}",
                    postcode=args.get("postcode"),
                )
        elif name == "get_customer" and not error:
            self.profile = data
        elif name == "find_charges" and r is not None:
            found = data or []
            if found:
                r.charge = found[0]
            else:
                self.notes.append(self.t("charge_not_found"))
                r.date = r.merchant = r.last4 = ""
                r.charged = None
        elif name == "get_charge" and r is not None and not error:
            r.charge = data
        elif name == "rehearse_refund" and not error:
            key = (str(args.get("charge_id")), str(args.get("amount")), str(args.get("currency")))
            self.rehearsals[key] = data
        elif name == "request_refund" and r is not None:
            r.done = True
            if error:
                self.notes.append(self.t("write_failed", error=content.removeprefix("Error: ")))
                return
            self.notes.append(
                self.t(
                    "done_request_refund",
                    amount=data["amount"],
                    currency=data["currency"],
                    charge_id=data["charge_id"],
                    approver=data["approver"],
                    role=self.t(f"role_{data['approver_role']}"),
                    within=self._within(data["approver"]),
                )
            )
            self._forget_charges()
        elif name == "update_email" and r is not None:
            r.done = True
            if error:
                self.notes.append(self.t("write_failed", error=content.removeprefix("Error: ")))
                return
            self.notes.append(
                self.t("done_update_email", email=data["email"], customer_id=data["customer_id"])
            )
            self.profile = None

    def _forget_charges(self) -> None:
        """A write changes what a charge shows (its pending requests): look it up again."""
        for r in self.reqs:
            r.charge = None
            r.searched = ""

    # -- deciding ------------------------------------------------------------------------

    def plan(self) -> Message:
        if not self.customer_id:
            return self._authenticate()
        if self.profile is None:
            return self.call("get_customer", customer_id=self.customer_id)
        return self.serve([r for r in self.reqs if not r.done])

    def _authenticate(self) -> Message:
        if self.email and f"e:{self.email}" not in self.tried:
            self.tried.add(f"e:{self.email}")
            return self.call("find_customer_by_email", email=self.email)
        if self.name and self.postcode:
            key = f"n:{self.name}/{self.postcode}"
            if key not in self.tried:
                self.tried.add(key)
                return self.call(
                    "find_customer_by_name",
                    first_name=self.name[0],
                    last_name=self.name[1],
                    postcode=self.postcode,
                )
        return self.ask_identity()

    def _find(self, r: Req) -> Message | dict[str, Any]:
        """The charge the request is about: looked up by what the customer said."""
        if r.charge is not None:
            return r.charge
        facts = {
            "date": r.date,
            "amount": r.charged[0] if r.charged else "",
            "currency": r.charged[1] if r.charged else "",
            "merchant": r.merchant,
            "card_last4": r.last4,
        }
        given = sum(bool(facts[k]) for k in ("date", "amount", "merchant", "card_last4"))
        key = json.dumps(facts, sort_keys=True)
        if given < 2 or key == r.searched:
            return self._ask(r, "charge", self.t("ask_charge"))
        r.searched = key
        return self.call("find_charges", customer_id=self.customer_id, **facts)

    def _refund(self, r: Req) -> Message:
        found = self._find(r)
        if isinstance(found, Message):
            return found
        c = found
        if not c["account_holder_is_caller"]:
            return self._refuse(r, "refuse_holder")
        where = {"merchant": c["merchant"], "date": c["date"]}
        if c["chargeback"] != "none":
            return self._transfer(r, "chargeback", c, self.t("transfer_chargeback", **where))
        if c["days_ago"] > DISPUTE_WINDOW_DAYS:
            return self._refuse(r, "refuse_window", days=c["days_ago"], **where)
        if c["payment_status"] == "refunded":
            return self._refuse(r, "refuse_full", **where)
        if c["pending_refund_requests"]:
            p = c["pending_refund_requests"][0]
            return self._refuse(
                r,
                "refuse_pending",
                amount=p["amount"],
                currency=p["currency"],
                approver=p["approver"],
                within=self._within(p["approver"]),
                **where,
            )
        if r.refund is None:
            return self._ask(r, "amount", self.t("ask_amount"))
        amount, currency = r.refund
        if currency != c["currency"]:
            return self._refuse(
                r, "refuse_currency", wanted=currency, currency=c["currency"], **where
            )
        if Decimal(amount) > Decimal(c["refundable_balance"]):
            return self._refuse(
                r,
                "refuse_balance",
                wanted=amount,
                currency=currency,
                balance=c["refundable_balance"],
                amount=c["amount"],
                refunded=c["refunded"],
                **where,
            )
        key = (c["charge_id"], amount, currency)
        rehearsal = self.rehearsals.get(key)
        if rehearsal is None:
            return self.call(
                "rehearse_refund",
                charge_id=c["charge_id"],
                amount=amount,
                currency=currency,
                mode=c["mode"],
            )
        if not rehearsal["would_be_accepted"]:
            return self._refuse(r, "refuse_rehearsal", problem=" ".join(rehearsal["problems"]))
        approver = rehearsal["approver"]
        return self.propose(
            "request_refund",
            {
                "charge_id": c["charge_id"],
                "amount": rehearsal["amount"],
                "currency": currency,
                "mode": c["mode"],
                "approver": approver,
                "reason": f"customer disputes the {c['merchant']} charge of {c['date']}",
            },
            self.t(
                "propose_refund",
                amount=rehearsal["amount"],
                currency=currency,
                charge_id=c["charge_id"],
                approver=approver,
                role=self.t(f"role_{rehearsal['approver_role']}"),
                within=self._within(approver),
                **where,
            ),
        )

    def _repeat(self, r: Req) -> Message:
        """The same refund asked again: the charge now shows the pending request."""
        return self._refund(r)

    def _fraud(self, r: Req) -> Message:
        found = self._find(r)
        if isinstance(found, Message):
            return found
        where = {"merchant": found.get("merchant", ""), "date": found.get("date", "")}
        return self._transfer(r, "fraud", found, self.t("transfer_fraud", **where))

    def _transfer(self, r: Req, category: str, charge: dict[str, Any], text: str) -> Message:
        r.done = True
        step = self.call(
            "transfer_to_human",
            category=category,
            summary=f"Customer {self.customer_id}: {category} on charge {charge['charge_id']}. "
            f"{r.text.strip()[:160]}",
            customer_id=self.customer_id,
            reference=charge["charge_id"],
        )
        return Message.assistant(text, step.tool_calls)

    def _email(self, r: Req) -> Message:
        assert self.profile is not None
        if not r.new_email:
            return self._ask(r, "email", self.t("ask_new_email"))
        return self.propose(
            "update_email",
            {"customer_id": self.customer_id, "new_email": r.new_email},
            self.t(
                "propose_email",
                old=self.profile["email"],
                new=r.new_email,
                customer_id=self.customer_id,
            ),
        )


def _names_the_charge(sentence: str) -> bool:
    """Whether a sentence with one amount states the charge ("I was charged 84.50 EUR")."""
    low = sentence.lower()
    return any(w in low for w in ("charged", "charge of", "扣了", "扣款"))


def _asks_refund(sentence: str) -> bool:
    """Whether a sentence with one amount names the refund ("please refund 12.50 EUR")."""
    low = sentence.lower()
    return any(w in low for w in ("refund", "back", "退还", "退款", "退回"))
