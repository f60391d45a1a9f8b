"""The membership tools the agent can call (docstrings are written for the model): the record
views and the helpers the writes share in `common`, identity and lookups in `reads`, guarded
writes in `writes`."""

from __future__ import annotations

from evals.domains.membership.tools.common import (
    DATE,
    NEW_INVOICE_CODES,
    HandoffCategory,
    PlanId,
    Topic,
    add_invoice,
    invoice_view,
    membership_view,
    own_membership,
    plan_view,
)
from evals.domains.membership.tools.reads import (
    find_member_by_email,
    find_member_by_number,
    get_membership,
    list_checkins,
    list_entitlements,
    list_invoices,
    quote_cancellation,
    quote_freeze,
    quote_plan_change,
)
from evals.domains.membership.tools.writes import (
    add_note,
    cancel_membership,
    change_plan,
    freeze_membership,
    notify_customer,
    request_refund,
    transfer_to_human,
    unfreeze_membership,
    waive_fee,
)
from evals.domains.membership.world import line_overcharge
from evals.engine.tools import ToolSet

TOOLS = ToolSet(
    [
        find_member_by_email,
        find_member_by_number,
        get_membership,
        list_invoices,
        list_entitlements,
        list_checkins,
        quote_plan_change,
        quote_freeze,
        quote_cancellation,
        change_plan,
        freeze_membership,
        unfreeze_membership,
        cancel_membership,
        waive_fee,
        request_refund,
        notify_customer,
        add_note,
        transfer_to_human,
    ]
)

__all__ = [
    "DATE",
    "NEW_INVOICE_CODES",
    "TOOLS",
    "HandoffCategory",
    "PlanId",
    "Topic",
    "add_invoice",
    "add_note",
    "cancel_membership",
    "change_plan",
    "find_member_by_email",
    "find_member_by_number",
    "freeze_membership",
    "get_membership",
    "invoice_view",
    "line_overcharge",
    "list_checkins",
    "list_entitlements",
    "list_invoices",
    "membership_view",
    "notify_customer",
    "own_membership",
    "plan_view",
    "quote_cancellation",
    "quote_freeze",
    "quote_plan_change",
    "request_refund",
    "transfer_to_human",
    "unfreeze_membership",
    "waive_fee",
]
