"""Our implementation of the τ² retail tools: names and arguments as the task data uses
them, behaviour as the retail policy describes (pending orders can be cancelled or modified
once, delivered orders returned or exchanged; refunds go back to the original payment method
or a gift card; price differences are paid with a method the user owns).

Reads are in `reads`, writes in `writes`, shared lookups in `common`; the policy's rules in
`..rules`, the tasks in `..tasks`."""

from __future__ import annotations

from functools import cache

from evals.domains.tau2_common.data import Tau2World, read_json
from evals.domains.tau2_retail.tools.reads import (
    calculate,
    find_user_id_by_email,
    find_user_id_by_name_zip,
    get_item_details,
    get_order_details,
    get_product_details,
    get_user_details,
    list_all_product_types,
)
from evals.domains.tau2_retail.tools.writes import (
    cancel_pending_order,
    exchange_delivered_order_items,
    modify_pending_order_address,
    modify_pending_order_items,
    modify_pending_order_payment,
    modify_user_address,
    return_delivered_order_items,
    transfer_to_human_agents,
)
from evals.engine.tools import ToolSet
from evals.engine.world import World

TOOLS = ToolSet(
    [
        find_user_id_by_email,
        find_user_id_by_name_zip,
        get_user_details,
        get_order_details,
        get_product_details,
        get_item_details,
        list_all_product_types,
        calculate,
        cancel_pending_order,
        modify_pending_order_address,
        modify_user_address,
        modify_pending_order_items,
        modify_pending_order_payment,
        return_delivered_order_items,
        exchange_delivered_order_items,
        transfer_to_human_agents,
    ]
)


@cache
def _pristine() -> Tau2World:
    db = read_json("retail", "db.json")
    return Tau2World({name: dict(rows) for name, rows in db.items()})


def build_world(seed: int) -> World:
    return _pristine()
