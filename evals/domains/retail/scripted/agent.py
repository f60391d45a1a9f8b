"""`sandbox/reference` for retail: a rule-based agent that follows policy.md.

It learns everything from the conversation: the customer's text (parsed with the shared
vocabulary) and the results of its own tool calls. It authenticates, looks up, checks the
rules it was told, summarises the exact action, asks for a yes, writes, reports, refuses what
the policy forbids and hands disputes to a human. It handles one request at a time and asks for
each missing fact in its own question — its inefficiency with hurried customers is real.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from evals.domains.retail.scripted import vocab
from evals.domains.retail.scripted.phrasings import PHRASINGS, REFERENCE
from evals.engine.messages import Message
from evals.engine.sandbox.desk import DeskAgent, Request

WINDOW = 30


@dataclass
class Req(Request):
    order_id: str = ""
    reason: str = ""
    refund_to: str = ""
    amount: str = ""
    address: tuple[str, str, str] | None = None


def _names(order: Mapping[str, Any]) -> str:
    """The products in an order, the way a customer knows it."""
    return ", ".join(i["name"] for i in order["items"])


class RetailReferenceAgent(DeskAgent[Req]):
    DOMAIN = "retail"
    PHRASINGS = PHRASINGS
    ENGLISH = REFERENCE
    # Its Chinese sentences are joined with a space, as its transcripts were measured.
    ZH_GAP = ZH_NOTES_GAP = " "

    def __init__(self, *, domain: Any, params: Any, seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.email = ""
        self.name: tuple[str, str] | None = None
        self.zip = ""
        self.tried: set[str] = set()
        self._tried_text = ""  # the identity details last looked up, as the customer gave them
        self.customer_id = ""
        self.profile: dict[str, Any] | None = None
        self.orders: dict[str, dict[str, Any]] = {}
        self.products: dict[str, dict[str, Any]] = {}
        self.identity_asked = 0

    # -- reading the customer ------------------------------------------------------------

    def has_new_facts(self, text: str) -> bool:
        return bool(
            vocab.ORDER_ID.search(text)
            or vocab.AMOUNT.search(text)
            or vocab.ADDRESS.search(text)
            or vocab.intent_of(text)
        )

    def new_request(self, intent: str) -> Req:
        return Req(intent)

    def observe_user(self, text: str) -> None:
        if re.search(r"\bwhy\b|为什么", text, re.I):
            self.explain = True
        email = vocab.EMAIL.search(text)
        if email:
            self.email = email.group(0).rstrip(".").lower()
        name = vocab.NAME.search(text)
        if name:
            self.name = (name.group(1), name.group(2))
        address = vocab.ADDRESS.search(text)
        rest = vocab.ADDRESS.sub(" ", text)
        zip_code = vocab.ZIP.search(re.sub(r"(?:not|不是+) ?\d{5}", " ", rest))
        if zip_code and (name or self.name or re.search(r"zip|邮编", text, re.I)):
            self.zip = zip_code.group(1)
        for sentence in vocab.SENTENCE.split(text):
            self.take(sentence, vocab.intent_of(sentence))
        target = self.active or self.focus
        if address and target is not None and target.intent.endswith("address"):
            target.address = address.groups()  # type: ignore[assignment]

    def same_request(self, r: Req, sentence: str) -> bool:
        # A sentence naming another order than an open request's starts its own.
        ids = vocab.order_ids(sentence)
        return not ids or not r.order_id or r.order_id == ids[0]

    def _absorb(self, r: Req, sentence: str) -> None:
        r.text += " " + sentence
        ids = vocab.order_ids(sentence)
        if ids:
            r.order_id = ids[-1]
        for reason, pattern in vocab.REASONS.items():
            if pattern.search(sentence):
                r.reason = reason
        if vocab.GIFT_CARD.search(sentence):
            r.refund_to = "gift_card"
        elif vocab.ORIGINAL.search(sentence):
            r.refund_to = "original_payment"
        amount = vocab.AMOUNT.search(sentence)
        if amount:
            r.amount = str(Decimal(amount.group(1)).quantize(Decimal("0.01")))
        address = vocab.ADDRESS.search(sentence)
        if address:
            r.address = address.groups()  # type: ignore[assignment]

    # -- reading tool results ------------------------------------------------------------

    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        data: Any = None
        if not error and content.startswith(("{", "[")):
            data = json.loads(content)
        if name.startswith("find_customer"):
            if not error:
                self.customer_id = data["customer_id"]
        elif name == "get_customer" and not error:
            self.profile = data
        elif name == "get_order":
            if error:
                for r in self.reqs:
                    if r.order_id == args.get("order_id"):
                        r.order_id = ""
                        r.asked.discard("order")
                self.notes.append(self.t("order_not_found", order=args.get("order_id")))
            else:
                self.orders[data["order_id"]] = data
        elif name == "get_product" and not error:
            self.products[data["product_id"]] = data
        elif name == "get_refund_status" and self.active is not None:
            self.active.done = True
            if not error:
                self.notes.append(
                    self.t(
                        "refund_status",
                        order=data["order_id"],
                        paid=data["paid"],
                        refunded=data["refunded"],
                    )
                )
        elif name == "transfer_to_human":
            self.notes.append(self.t("transfer"))
        elif self.active is not None:
            self.active.done = True
            if error:
                self.notes.append(self.t("write_failed", error=content.removeprefix("Error: ")))
            else:
                self.notes.append(self.t(f"done_{name}", **data))
                self.orders.pop(args.get("order_id", ""), None)
                if self.profile is not None and name in (
                    "exchange_delivered_items",
                    "return_delivered_items",
                    "cancel_pending_order",
                ):
                    self.profile = None  # gift card balance may have changed

    def plan(self) -> Message:
        if not self.customer_id:
            return self._authenticate()
        if self.profile is None:
            return self.call("get_customer", customer_id=self.customer_id)
        return self.serve([r for r in self.reqs if not r.done])

    def _authenticate(self) -> Message:
        if self.email and f"e:{self.email}" not in self.tried:
            self.tried.add(f"e:{self.email}")
            self._tried_text = self.email
            return self.call("find_customer_by_email", email=self.email)
        if self.name and self.zip and f"n:{self.name}{self.zip}" not in self.tried:
            self.tried.add(f"n:{self.name}{self.zip}")
            self._tried_text = f"{self.name[0]} {self.name[1]}, {self.zip}"
            return self.call(
                "find_customer_by_name_zip",
                first_name=self.name[0],
                last_name=self.name[1],
                zip=self.zip,
            )
        prefix = ""
        if self.tried:
            # Name the details that matched nothing, so a customer who slipped can see it.
            prefix = self.t("account_not_found", tried=self._tried_text) + " "
        if self.explain:
            self.explain = False
            prefix = self.t("explain_identity") + " "
        self.identity_asked += 1
        return self.say(prefix + self.t("ask_identity"))

    def _order(self, r: Req) -> Message | dict[str, Any]:
        if r.order_id:
            if r.order_id not in self.orders:
                return self.call("get_order", order_id=r.order_id)
            return self.orders[r.order_id]
        assert self.profile is not None
        for order_id in self.profile["orders"]:
            if order_id not in self.orders:
                return self.call("get_order", order_id=order_id)
        text = r.text.lower()
        matches = [o for o in self.orders.values() if any(i["name"] in text for i in o["items"])]
        if len(matches) == 1:
            r.order_id = matches[0]["order_id"]
            return matches[0]
        return self._ask(r, "order", self.t("ask_order"))

    def _refuse(self, r: Req, key: str, **values: Any) -> Message:
        r.done = True
        if key != "why_other_account" and values.get("order") in self.orders:
            # Which order it means, by what is in it: the customer may not know the number.
            order = self.orders[values["order"]]
            values["order"] = self.t("order_named", order=order["order_id"], names=_names(order))
        return self.say(self.t("refuse", why=self.t(key, **values)))

    def _status(self, status: str) -> str:
        """Why an order's status stops a change, in the words of the policy."""
        return self.t(f"status_{status}")

    def _items(self, r: Req, order: dict[str, Any]) -> list[dict[str, Any]]:
        text = r.text.lower()
        return [i for i in order["items"] if i["name"] in text]

    def handle(self, r: Req) -> Message:
        if r.intent == "default_address":
            if r.address is None:
                return self._ask(r, "address", self.t("ask_address"))
            line1, city, zip_code = r.address
            return self.propose(
                "modify_default_address",
                {"customer_id": self.customer_id, "line1": line1, "city": city, "zip": zip_code},
                self.t("propose_default_address", address=f"{line1}, {city}, {zip_code}"),
            )
        order = self._order(r)
        if isinstance(order, Message):
            return order
        oid, status = order["order_id"], order["status"]
        if order["customer_id"] != self.customer_id:
            return self._refuse(r, "why_other_account", order=oid)
        if r.intent in ("dispute", "price_adjustment"):
            category = "dispute" if r.intent == "dispute" else "out_of_policy"
            r.done = True
            return self.call(
                "transfer_to_human",
                category=category,
                summary=f"Customer {self.customer_id} about order {oid}: {r.text.strip()[:160]}",
                order_id=oid,
            )
        if r.intent == "status":
            return self.call("get_refund_status", order_id=oid)
        if r.intent == "cancel":
            return self._cancel(r, order)
        if r.intent == "order_address":
            if status != "pending":
                return self._refuse(r, "why_address", order=oid, status=self._status(status))
            if r.address is None:
                return self._ask(r, "address", self.t("ask_address"))
            line1, city, zip_code = r.address
            return self.propose(
                "modify_order_address",
                {"order_id": oid, "line1": line1, "city": city, "zip": zip_code},
                self.t(
                    "propose_order_address",
                    order=oid,
                    names=_names(order),
                    address=f"{line1}, {city}, {zip_code}",
                ),
            )
        if status != "delivered":
            return self._refuse(r, "why_not_delivered", order=oid, status=self._status(status))
        if order["days_since_delivery"] > WINDOW:
            return self._refuse(
                r, "why_window", order=oid, days=order["days_since_delivery"], window=WINDOW
            )
        items = [i for i in self._items(r, order) if i["status"] == "delivered"]
        if not items:
            names = ", ".join(f"{i['name']} ({i['option']})" for i in order["items"])
            return self._ask(r, "items", self.t("ask_items", order=oid, names=names))
        if r.intent == "return":
            return self._return(r, oid, items)
        if r.intent == "exchange":
            return self._exchange(r, oid, items)
        return self._damaged(r, order, items[0])

    def _cancel(self, r: Req, order: dict[str, Any]) -> Message:
        oid = order["order_id"]
        if order["status"] != "pending":
            return self._refuse(r, "why_cancel", order=oid, status=self._status(order["status"]))
        if not r.reason:
            return self._ask(r, "reason", self.t("ask_reason"))
        return self.propose(
            "cancel_pending_order",
            {"order_id": oid, "reason": r.reason},
            self.t(
                "propose_cancel",
                order=oid,
                names=_names(order),
                reason=self.t(f"reason_{r.reason}"),
                total=order["total"],
            ),
        )

    def _return(self, r: Req, oid: str, items: list[dict[str, Any]]) -> Message:
        if not r.refund_to:
            return self._ask(r, "refund_to", self.t("ask_refund_to"))
        total = sum(Decimal(i["price"]) for i in items)
        listed = ", ".join(
            self.t("item_listed", name=i["name"], option=i["option"], item_id=i["item_id"])
            for i in items
        )
        return self.propose(
            "return_delivered_items",
            {"order_id": oid, "item_ids": [i["item_id"] for i in items], "refund_to": r.refund_to},
            self.t(
                "propose_return",
                items=listed,
                order=oid,
                total=total,
                where=self.t(r.refund_to),
                method=r.refund_to,
            ),
        )

    def _exchange(self, r: Req, oid: str, items: list[dict[str, Any]]) -> Message:
        item = items[0]
        product = self.products.get(item["product_id"])
        if product is None:
            return self.call("get_product", product_id=item["product_id"])
        choices = [
            x for x in product["variants"] if x["available"] and x["item_id"] != item["item_id"]
        ]
        text = r.text.lower()
        wanted = [x for x in choices if re.search(rf"\b{re.escape(x['option'])}\b", text)]
        if not wanted:
            options = ", ".join(x["option"] for x in choices)
            return self._ask(r, "option", self.t("ask_option", options=options))
        new = wanted[-1]
        payment = r.refund_to or "original_payment"
        diff = Decimal(new["price"]) - Decimal(item["price"])
        return self.propose(
            "exchange_delivered_items",
            {
                "order_id": oid,
                "item_ids": [item["item_id"]],
                "new_item_ids": [new["item_id"]],
                "payment": payment,
            },
            self.t(
                "propose_exchange",
                item=item["name"],
                option=item["option"],
                item_id=item["item_id"],
                order=oid,
                new=new["option"],
                new_id=new["item_id"],
                diff=diff,
                where=self.t(payment),
                method=payment,
            ),
        )

    def _damaged(self, r: Req, order: dict[str, Any], item: dict[str, Any]) -> Message:
        if not r.amount:
            return self._ask(r, "amount", self.t("ask_amount"))
        amount = Decimal(r.amount)
        if amount > Decimal(item["price"]):
            return self._refuse(
                r,
                "why_amount",
                amount=r.amount,
                item=item["name"],
                order=order["order_id"],
                price=item["price"],
            )
        return self.propose(
            "request_refund",
            {
                "order_id": order["order_id"],
                "item_id": item["item_id"],
                "amount": r.amount,
                "reason": "damaged",
            },
            self.t(
                "propose_damaged",
                amount=r.amount,
                item=item["name"],
                item_id=item["item_id"],
                order=order["order_id"],
            ),
        )
