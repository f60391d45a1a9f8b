"""`sandbox/scripted` for retail: a customer who follows its scenario.

It reveals what it knows when asked, states its requests (one at a time or all at once),
confirms a summary only when it matches what it wants (otherwise corrects it), accepts a
refusal that cites the policy, and pursues every request before saying goodbye. The persona
(base class) decides how it says it and when it gives up. It reads only the agent's text.
"""

from __future__ import annotations

from typing import Any

from evals.domains.retail.scripted import vocab as v
from evals.engine.messages import Signal
from evals.engine.persona import Level
from evals.engine.sandbox import ScriptedUserBase

AFFIRM_EN = [
    "Yes, please go ahead.",
    "Yes.",
    "Yep, that's right.",
    "Confirm.",
    "Sure, do it.",
    "Okay, go ahead.",
    "Yes please.",
]
AFFIRM_ZH = ["是的，请继续。", "确认。", "好的，可以。"]
GOODBYE = ["No, that's all. Thanks!", "That's everything, thank you.", "Nothing else, bye."]


def _items(r: dict[str, Any]) -> str:
    return " and the ".join(f"{i['name']} ({i['option']})" for i in r.get("items", ()))


def _wrong_id(order_id: str) -> str:
    last = int(order_id[-1])
    return order_id[:-1] + str((last + 3) % 10)


class RetailScriptedUser(ScriptedUserBase):
    def __init__(self, *, scenario: Any, persona: Any, seed: int) -> None:
        super().__init__(scenario=scenario, persona=persona, seed=seed)
        self.requests: list[dict[str, Any]] = [dict(r) for r in self.data["requests"]]
        self.done: set[int] = set()
        self.identity = self.data["identity"]
        self.order_known = bool(self.data.get("order_known", True))
        self.confirmed: int | None = None

    @classmethod
    def factory(
        cls, *, domain: Any, scenario: Any, persona: Any, params: Any, seed: int
    ) -> RetailScriptedUser:
        return cls(scenario=scenario, persona=persona, seed=seed)

    # -- what the customer says ----------------------------------------------------------

    def _order_ref(self, r: dict[str, Any]) -> str:
        if not self.order_known or "order_id" not in r:
            return f"the order with the {_items(r)}"
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
        items = _items(r)
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

    def opening(self) -> str:
        if self.persona.incoherence is Level.HIGH and self.chance(0.7):
            return self.pick(["hi. problem with my stuff", "hello?? need help with an order thing"])
        if self.data.get("ordered") or (len(self.requests) > 1 and self.chance(0.5)):
            parts = [self._state(i) for i in range(len(self.requests))]
            text = " Then ".join(parts) if self.data.get("ordered") else " Also, ".join(parts)
        else:
            text = self._state(0)
        if self.persona.skepticism is Level.LOW and self.chance(0.3):
            text = f"{self._identity()} {text}"
        return text

    # -- answering the agent -------------------------------------------------------------

    def _open(self) -> list[int]:
        return [i for i in range(len(self.requests)) if i not in self.done]

    def _focus(self) -> int:
        stated_open = [i for i in self._open() if i in self.stated]
        return stated_open[0] if stated_open else (self._open() or [0])[0]

    def _matches(self, r: dict[str, Any], low: str) -> bool:
        must: list[str] = {
            "cancel": ["cancel", r.get("reason", "")],
            "return": [
                "return",
                "gift card" if r.get("refund_to") == "gift_card" else "original payment",
            ],
            "exchange": ["exchange", *r.get("new_options", ())],
            "order_address": ["address", r.get("address", {}).get("line1", "")],
            "default_address": ["default address", r.get("address", {}).get("line1", "")],
            "damaged": ["refund", str(r.get("amount", ""))],
        }.get(r["intent"], [r["intent"]])
        must += [
            i["name"]
            for i in r.get("items", ())
            if r["intent"] in ("return", "exchange", "damaged")
        ]
        if r["intent"] == "return":
            must += [f"{i['name']} ({i['option']}" for i in r.get("items", ())]
        if "order_id" in r:
            must.append(r["order_id"].lower())
        return all(m.lower() in low for m in must)

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        low = agent_text.lower()
        shared = self.first_moves(low, v.TRANSFER)
        if shared is not None:
            return shared
        if v.DONE.lower() in low and self.confirmed is not None:
            self.done.add(self.confirmed)
            self.confirmed = None
        if v.SORRY_CANT.lower() in low:
            # A refusal (or a failed write) answers the request just confirmed, else the
            # open request it names, else the one in focus.
            refused = self.confirmed
            if refused is None:
                named = [
                    i for i in self._open() if self.requests[i].get("order_id", "").lower() in low
                ]
                refused = named[0] if named else self._focus()
            self.done.add(refused)
            self.confirmed = None
        if v.CONFIRM_TAIL.lower() in low:
            for i in self._open():
                if self._matches(self.requests[i], low):
                    if self.requests[i].get("expect") == "refusal":
                        break
                    self.confirmed = i
                    return self._affirm(), Signal.NONE
            return self._decline(), Signal.NONE
        for i in self._open():
            r = self.requests[i]
            if (
                r["intent"] == "status"
                and "refunded" in low
                and r.get("order_id", "").lower() in low
            ):
                self.done.add(i)
        return self._answer(low)

    def _affirm(self) -> str:
        """A yes to a summary that matches what the customer wants."""
        return self.pick(AFFIRM_ZH) if self.chance(0.2) else self.pick(AFFIRM_EN)

    def _decline(self) -> str:
        """A no to a summary that does not match: what the customer wants instead."""
        return f"No, that's not right. {self._state(self._focus())}"

    def _answer(self, low: str) -> tuple[str, Signal]:
        focus = self._focus()
        r = self.requests[focus]
        questions = [
            ("order id", "order"),
            ("reason for the cancellation", "reason"),
            ("original payment method or to your gift card", "refund_to"),
            ("which items", "items"),
            ("which option", "option"),
            ("new address", "address"),
            ("how much would you like", "amount"),
        ]
        for phrase, kind in questions:
            if phrase in low:
                if self.asked(kind):
                    return self.abandon()
                return self._fact(kind, r), Signal.NONE
        if v.ANYTHING_ELSE.lower() in low or v.HOW_CAN_I_HELP.lower() in low:
            remaining = self._open()
            if not remaining:
                self.finished = True
                return self.pick(GOODBYE), Signal.STOP
            nxt = next((i for i in remaining if i not in self.stated), remaining[0])
            if nxt in self.stated:
                return f"You haven't finished my other request. {self._state(nxt)}", Signal.NONE
            return self._state(nxt), Signal.NONE
        return self._state(focus), Signal.NONE

    def _fact(self, kind: str, r: dict[str, Any]) -> str:
        if kind == "order":
            if not self.order_known or "order_id" not in r:
                return f"I don't have the order number. It's the order with the {_items(r)}."
            return f"It's {r['order_id']}."
        if kind == "reason":
            return self._reason(r)
        if kind == "refund_to":
            return self._refund_to(r)
        if kind == "items":
            return f"The {_items(r)}."
        if kind == "option":
            return f"The {' and '.join(r.get('new_options', ()))} one."
        if kind == "address":
            return f"{self._address(r)}." if "address" in r else "I don't know."
        return f"${r.get('amount', '')}."
