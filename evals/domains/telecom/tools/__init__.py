"""The telecom tools. The agent's (Actor.AGENT, in `agent`) read and change the carrier's
records; the customer's (Actor.USER, in `phone`) read and change its own phone; `assertions`
judge the phone at the end. Docstrings are written for the model."""

from __future__ import annotations

from evals.domains.telecom.tools.agent import (
    add_data_topup,
    change_plan,
    enable_roaming,
    find_customer_by_email,
    find_customer_by_phone,
    get_lines,
    issue_esim,
    list_bills,
    pay_bill,
    push_network_settings,
    resume_line,
    send_puk_code,
    transfer_to_human,
)
from evals.domains.telecom.tools.assertions import (
    ASSERTIONS,
    assert_app_data,
    assert_mobile_data,
    assert_service,
)
from evals.domains.telecom.tools.common import (
    DATE,
    HandoffCategory,
    PlanId,
    bill_view,
    line_view,
)
from evals.domains.telecom.tools.phone import (
    add_esim,
    allow_app_mobile_data,
    check_app_permissions,
    check_network_settings,
    check_sim,
    check_status_bar,
    install_carrier_settings,
    restart_device,
    set_airplane_mode,
    set_data_roaming,
    set_mobile_data,
    unlock_sim,
)
from evals.engine.tools import ToolSet

AGENT_TOOLS = [
    find_customer_by_email,
    find_customer_by_phone,
    get_lines,
    list_bills,
    pay_bill,
    resume_line,
    add_data_topup,
    change_plan,
    enable_roaming,
    send_puk_code,
    push_network_settings,
    issue_esim,
    transfer_to_human,
]
USER_TOOLS = [
    check_status_bar,
    check_network_settings,
    check_sim,
    check_app_permissions,
    set_airplane_mode,
    set_mobile_data,
    set_data_roaming,
    restart_device,
    unlock_sim,
    install_carrier_settings,
    add_esim,
    allow_app_mobile_data,
]
TOOLS = ToolSet([*AGENT_TOOLS, *USER_TOOLS])

__all__ = [
    "ASSERTIONS",
    "DATE",
    "TOOLS",
    "HandoffCategory",
    "PlanId",
    "add_data_topup",
    "add_esim",
    "allow_app_mobile_data",
    "assert_app_data",
    "assert_mobile_data",
    "assert_service",
    "bill_view",
    "change_plan",
    "check_app_permissions",
    "check_network_settings",
    "check_sim",
    "check_status_bar",
    "enable_roaming",
    "find_customer_by_email",
    "find_customer_by_phone",
    "get_lines",
    "install_carrier_settings",
    "issue_esim",
    "line_view",
    "list_bills",
    "pay_bill",
    "push_network_settings",
    "restart_device",
    "resume_line",
    "send_puk_code",
    "set_airplane_mode",
    "set_data_roaming",
    "set_mobile_data",
    "transfer_to_human",
    "unlock_sim",
]
