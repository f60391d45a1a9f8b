"""What the retail scripted customer says: its requests, the facts it knows, its identity,
its yes and its corrections, put into words for its persona (`RetailScriptedUser` decides
when to say which)."""

from __future__ import annotations

from typing import Any

from evals.domains.retail.scripted.customer_phrases import PHRASES
from evals.engine.persona import Level
from evals.engine.sandbox.request_user import RequestListUser


def _wrong_id(order_id: str) -> str:
    last = int(order_id[-1])
    return order_id[:-1] + str((last + 3) % 10)


class RetailSpeech(RequestListUser):
    """The customer's words; the scenario's requests and identity are all it knows."""

    PHRASES = PHRASES

    def __init__(self, *, scenario: Any, persona: Any, seed: int) -> None:
        super().__init__(scenario=scenario, persona=persona, seed=seed)
        self.order_known = bool(self.data.get("order_known", True))

    # -- what the customer says ----------------------------------------------------------

    def items_text(self, r: dict[str, Any]) -> str:
        """The request's items, by catalogue name and option."""
        return self.say("items_and").join(
            self.say("item", name=i["name"], option=i["option"]) for i in r.get("items", ())
        )

    def options_text(self, r: dict[str, Any]) -> str:
        """The options the customer wants instead (an exchange)."""
        return self.say("options_and").join(r["new_options"])

    def _order_ref(self, r: dict[str, Any]) -> str:
        if not self.order_known or "order_id" not in r:
            return self.say("where_items", items=self.items_text(r))
        order_id = r["order_id"]
        if (
            order_id not in self.fixed
            and order_id not in self.mistakes.values()
            and self.confused()
        ):
            wrong = _wrong_id(order_id)
            self.mistakes[wrong] = order_id
            return self.say("where_order", order_id=wrong)
        return self.say("where_order", order_id=order_id)

    def _state(self, i: int) -> str:
        self.stated.add(i)
        r = self.requests[i]
        where = self._order_ref(r)
        items = self.items_text(r)
        intent = r["intent"]
        if intent == "cancel":
            text = self.say("cancel", where=where)
            if self.chance(0.6):
                text = self.join(text, self._reason(r))
        elif intent == "return":
            text = self.say("return", items=items, where=where)
            if self.chance(0.5):
                text = self.join(text, self._refund_to(r))
        elif intent == "exchange":
            text = self.say("exchange", items=items, where=where, new=self.options_text(r))
            if r.get("payment") == "gift_card":
                text = self.join(text, self.say("exchange_gift_card"))
        elif intent == "order_address":
            text = self.say("order_address", where=where, address=self._address(r))
        elif intent == "default_address":
            text = self.say("default_address", address=self._address(r))
        elif intent == "damaged":
            text = self.say("damaged", items=items, where=where, amount=r["amount"])
        elif intent == "dispute":
            text = self.say("dispute", where=where)
        elif intent == "price_adjustment":
            text = self.say("price_adjustment", where=where)
        else:
            text = self.say("status", where=where)
        return text

    def _reason(self, r: dict[str, Any]) -> str:
        if r.get("reason") == "ordered by mistake":
            return self.say("reason_mistake")
        return self.say("reason_no_need")

    def _refund_to(self, r: dict[str, Any]) -> str:
        if r.get("refund_to") == "gift_card":
            return self.say("refund_gift_card")
        return self.say("refund_original")

    def _address(self, r: dict[str, Any]) -> str:
        a = r["address"]
        return f"{a['line1']}, {a['city']}, {a['zip']}"

    def _identity(self, slots: tuple[str, ...] = ()) -> str:
        ident = self.identity
        if ident["gives"] == "email":
            return self.say("email", email=ident["email"])
        zip_code = ident["zip"]
        if (
            zip_code not in self.fixed
            and zip_code not in self.mistakes.values()
            and self.confused()
        ):
            wrong = zip_code[:3] + zip_code[4] + zip_code[3]
            if wrong != zip_code:
                self.mistakes[wrong] = zip_code
                zip_code = wrong
        name = f"{ident['first_name']} {ident['last_name']}"
        if self.persona.incoherence is Level.HIGH:
            return self.say("identity_incoherent", zip=zip_code, name=name)
        return self.say("name_zip", name=name, zip=zip_code)

    def _fact(self, kind: str, r: dict[str, Any]) -> str:
        if kind == "order":
            if not self.order_known or "order_id" not in r:
                return self.say("no_order_number", items=self.items_text(r))
            return self.say("its_order", order_id=r["order_id"])
        if kind == "reason":
            return self._reason(r) if r.get("reason") else self.say("rather_not_say")
        if kind == "refund_to":
            if r["intent"] == "exchange":
                gift = r.get("payment") == "gift_card"
                return self.say("my_gift_card" if gift else "my_original_card")
            return self._refund_to(r)
        if kind == "items":
            return (
                self.say("the_items", items=self.items_text(r))
                if r.get("items")
                else (self.say("dont_know"))
            )
        if kind == "option":
            if not r.get("new_options"):
                return self.say("dont_know")
            return self.say("the_option", new=self.options_text(r))
        if kind == "address":
            return (
                self.say("the_address", address=self._address(r))
                if "address" in r
                else (self.say("dont_know"))
            )
        return (
            self.say("the_amount", amount=r["amount"])
            if r.get("amount")
            else (self.say("dont_know"))
        )
