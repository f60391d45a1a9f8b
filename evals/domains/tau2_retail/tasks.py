"""τ² retail's tasks, and the lookups required of the tasks whose gold changes nothing.

Eight published tasks (24, 25, 57, 62, 65, 67, 68, 105) end with the database as it began:
the right outcome is an answer or a refusal. Judged on the final state alone, an agent that
does nothing passes them. So each gets `Task.required_reads`: the customer authenticated
(email, or name and zip: either lookup) and the records the outcome rests on read — from
τ²'s gold reads (the user's profile and the orders and products it looked up), or, where the
gold has none or also holds records only looked at while searching, named here.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from evals.domains.tau2_common.data import call_tool, convert_tasks, gold_actions, read_json
from evals.domains.tau2_retail.tools import TOOLS, build_world
from evals.engine.errors import ToolError
from evals.engine.task import GoldCall, Task

# The reads of a record an outcome can rest on (not the authentication, not `calculate`).
_RECORD_READS = ("get_user_details", "get_order_details", "get_product_details", "get_item_details")

# (the customer, the reads) for the bundled data's write-less tasks whose gold reads do not say
# what the outcome rests on.
_DECIDED_BY: dict[str, tuple[str, tuple[tuple[str, dict[str, str]], ...]]] = {
    # No gold actions: the customer backs out of cancelling the grill, then asks what the two
    # t-shirts of another order are made of — the order's item options say.
    "24": (
        "sofia_hernandez_5364",
        (
            ("get_user_details", {"user_id": "sofia_hernandez_5364"}),
            ("get_order_details", {"order_id": "#W9609649"}),
        ),
    ),
    # The gold reads all four orders to find the one sent to Texas; that one (delivered, paid
    # by PayPal) decides that the refund cannot go to an Amex card the profile does not hold.
    "25": (
        "isabella_johansson_2152",
        (
            ("get_user_details", {"user_id": "isabella_johansson_2152"}),
            ("get_order_details", {"order_id": "#W5565470"}),
        ),
    ),
    # No gold actions: the order is pending and paid by credit card, so a cancellation refunds
    # the card, not a gift card — and the customer wants no cancellation then.
    "57": ("ivan_hernandez_6923", (("get_order_details", {"order_id": "#W4284542"}),)),
    # The speaker's price and battery life are in its order; whether a speaker under $100
    # exists is in the product's variants. The gold's other order is a search step.
    "62": (
        "chen_johnson_4204",
        (
            ("get_order_details", {"order_id": "#W5061109"}),
            ("get_product_details", {"product_id": "4768869376"}),
        ),
    ),
    # The only gold step, the exchange, cannot be paid: the customer's one payment method is
    # a gift card holding less than the price difference (their profile), computed from the
    # order's kettles and the product's variants.
    "105": (
        "aarav_anderson_8794",
        (
            ("get_user_details", {"user_id": "aarav_anderson_8794"}),
            ("get_order_details", {"order_id": "#W4316152"}),
            ("get_product_details", {"product_id": "9832717871"}),
        ),
    ),
}


def _authentication(user_id: str) -> tuple[GoldCall, ...]:
    user = build_world(0).tables["users"][user_id]
    return (
        GoldCall("find_user_id_by_email", {"email": user["email"]}),
        GoldCall(
            "find_user_id_by_name_zip",
            {
                "first_name": user["name"]["first_name"],
                "last_name": user["name"]["last_name"],
                "zip": user["address"]["zip"],
            },
        ),
    )


def decision_reads(raw: Mapping[str, Any]) -> tuple[tuple[GoldCall, ...], ...]:
    """The lookups a write-less task requires: authentication, then each record read (one
    call each). Empty when the task names no customer."""
    named = _DECIDED_BY.get(str(raw["id"]))
    if named is not None:
        user_id, reads = named
    else:
        world = build_world(0).copy()
        found = []
        for name, args in gold_actions(raw):
            if name not in _RECORD_READS or (name, args) in found:
                continue
            try:
                call_tool(TOOLS, world, name, args)
            except ToolError:
                continue  # a lookup of what the customer first said wrongly
            found.append((name, args))
        users = [a["user_id"] for n, a in found if n == "get_user_details"]
        if not users:
            return ()
        user_id, reads = users[0], tuple(found)
    return (_authentication(user_id), *((GoldCall(n, dict(a)),) for n, a in reads))


@cache
def load_tasks() -> list[Task]:
    return convert_tasks(
        "tau2_retail",
        TOOLS,
        read_json("retail", "tasks.json"),
        read_json("retail", "split_tasks.json"),
        build_world=build_world,
        decision_reads=decision_reads,
    )
