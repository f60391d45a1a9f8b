"""What the retail scripted customer says: its requests, the facts it knows, its identity,
its yes and its corrections, put into words for its persona (`RetailScriptedUser` decides
when to say which)."""

from __future__ import annotations

from typing import Any

from evals.engine.persona import Level
from evals.engine.sandbox.user import RequestListUser

UNCLEAR = [
    "Sorry, what do you need from me?",
    "I'm not sure what you're asking. What do you need from me?",
]
GOODBYE = ["No, that's all. Thanks!", "That's everything, thank you.", "Nothing else, bye."]


def items_text(r: dict[str, Any]) -> str:
    return " and the ".join(f"{i['name']} ({i['option']})" for i in r.get("items", ()))


def _wrong_id(order_id: str) -> str:
    last = int(order_id[-1])
    return order_id[:-1] + str((last + 3) % 10)


class RetailSpeech(RequestListUser):
    """The customer's words; the scenario's requests and identity are all it knows."""

    VAGUE_OPENINGS = ("hi. problem with my stuff", "hello?? need help with an order thing")

    def __init__(self, *, scenario: Any, persona: Any, seed: int) -> None:
        super().__init__(scenario=scenario, persona=persona, seed=seed)
        self.order_known = bool(self.data.get("order_known", True))

    # -- what the customer says ----------------------------------------------------------

    def _order_ref(self, r: dict[str, Any]) -> str:
        if not self.order_known or "order_id" not in r:
            return f"the order with the {items_text(r)}"
        order_id = r["order_id"]
        if (
            order_id not in self.fixed
            and order_id not in self.mistakes.values()
            and self.confused()
        ):
            wrong = _wrong_id(order_id)
            self.mistakes[wrong] = order_id
            return f"order {wrong}"
        return f"order {order_id}"

    def _state(self, i: int) -> str:
        self.stated.add(i)
        r = self.requests[i]
        where = self._order_ref(r)
        items = items_text(r)
        intent = r["intent"]
        if intent == "cancel":
            text = self.pick(
                [
                    f"I'd like to cancel {where}.",
                    f"Please cancel {where}.",
                    f"I want to cancel {where}.",
                ]
            )
            if self.chance(0.6):
                text += " " + self._reason(r)
        elif intent == "return":
            text = self.pick(
                [
                    f"I want to return the {items} from {where}.",
                    f"I'd like to return the {items} from {where}.",
                ]
            )
            if self.chance(0.5):
                text += " " + self._refund_to(r)
        elif intent == "exchange":
            new = " and ".join(r["new_options"])
            text = self.pick(
                [
                    f"I'd like to exchange the {items} from {where} for the {new} one.",
                    f"Can I exchange the {items} from {where}? I want the {new} one instead.",
                ]
            )
            if r.get("payment") == "gift_card":
                text += " Please pay any difference with my gift card."
        elif intent == "order_address":
            text = f"Please change the shipping address of {where} to {self._address(r)}."
        elif intent == "default_address":
            text = self.pick(
                [
                    f"Please update my default address to {self._address(r)}.",
                    f"I moved; my default address should be {self._address(r)}.",
                ]
            )
        elif intent == "damaged":
            text = self.pick(
                [
                    f"The {items} from {where} arrived damaged. I'd like a refund of ${r['amount']}.",
                    f"My {items} from {where} came broken; please refund ${r['amount']}.",
                ]
            )
        elif intent == "dispute":
            text = self.pick(
                [
                    f"I was charged twice for {where} and I want to dispute the charge.",
                    f"There is a double charge on {where}; I dispute it.",
                ]
            )
        elif intent == "price_adjustment":
            text = (
                f"The price of {where} dropped right after I bought it. I want a price adjustment."
            )
        else:
            text = f"How much has been refunded on {where}?"
        return text

    def _reason(self, r: dict[str, Any]) -> str:
        if r.get("reason") == "ordered by mistake":
            return self.pick(["I ordered it by mistake.", "It was ordered by mistake."])
        return self.pick(["I no longer need it.", "It's no longer needed."])

    def _refund_to(self, r: dict[str, Any]) -> str:
        if r.get("refund_to") == "gift_card":
            return self.pick(
                ["Please put the refund on my gift card.", "Refund it to my gift card, please."]
            )
        return self.pick(
            ["Refund it to my original payment method.", "The original payment method is fine."]
        )

    def _address(self, r: dict[str, Any]) -> str:
        a = r["address"]
        return f"{a['line1']}, {a['city']}, {a['zip']}"

    def _identity(self) -> str:
        ident = self.identity
        if ident["gives"] == "email":
            return self.pick([f"My email is {ident['email']}.", f"It's {ident['email']}."])
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
            return f"zip {zip_code}... I don't remember my email. My name is {name}."
        return self.pick(
            [
                f"My name is {name} and my zip code is {zip_code}. I don't remember my email.",
                f"I'm {name}, zip {zip_code}.",
            ]
        )

    def _affirm(self) -> str:
        """A yes to a proposal that matches what the customer wants."""
        return self.plain_yes()

    def _decline(self) -> str:
        """A no to a proposal of something the customer did not ask: what it wants instead."""
        return f"No, that's not what I want. {self._state(self._focus())}"

    def _fact(self, kind: str, r: dict[str, Any]) -> str:
        if kind == "order":
            if not self.order_known or "order_id" not in r:
                return f"I don't have the order number. It's the order with the {items_text(r)}."
            return f"It's {r['order_id']}."
        if kind == "reason":
            return self._reason(r) if r.get("reason") else "I'd just rather not say."
        if kind == "refund_to":
            if r["intent"] == "exchange":
                return "My gift card." if r.get("payment") == "gift_card" else "My original card."
            return self._refund_to(r)
        if kind == "items":
            return f"The {items_text(r)}." if r.get("items") else "I don't know."
        if kind == "option":
            if not r.get("new_options"):
                return "I don't know."
            return f"The {' and '.join(r['new_options'])} one."
        if kind == "address":
            return f"{self._address(r)}." if "address" in r else "I don't know."
        return f"${r['amount']}." if r.get("amount") else "I don't know."
