"""The retail tools the agent can call (docstrings are written for the model): lookups in
`reads`, guarded writes in `writes`, shared helpers in `common`."""

from evals.domains.retail.tools.common import money, order_view
from evals.domains.retail.tools.reads import (
    find_customer_by_email,
    find_customer_by_name_zip,
    get_customer,
    get_order,
    get_product,
    get_refund_status,
)
from evals.domains.retail.tools.writes import (
    cancel_pending_order,
    exchange_delivered_items,
    modify_default_address,
    modify_order_address,
    request_refund,
    return_delivered_items,
    transfer_to_human,
)
from evals.engine.tools import ToolSet

TOOLS = ToolSet(
    [
        find_customer_by_email,
        find_customer_by_name_zip,
        get_customer,
        get_order,
        get_product,
        get_refund_status,
        cancel_pending_order,
        return_delivered_items,
        exchange_delivered_items,
        modify_order_address,
        modify_default_address,
        request_refund,
        transfer_to_human,
    ]
)

__all__ = [
    "TOOLS",
    "cancel_pending_order",
    "exchange_delivered_items",
    "find_customer_by_email",
    "find_customer_by_name_zip",
    "get_customer",
    "get_order",
    "get_product",
    "get_refund_status",
    "modify_default_address",
    "modify_order_address",
    "money",
    "order_view",
    "request_refund",
    "return_delivered_items",
    "transfer_to_human",
]
