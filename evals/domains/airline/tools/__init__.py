"""The airline tools the agent can call (docstrings are written for the model): the record
views and argument helpers in `common`, identity and lookups in `reads`, guarded writes in
`writes`."""

from __future__ import annotations

from evals.domains.airline.tools.common import (
    HandoffCategory,
    flight_view,
    money_arg,
    require_confirmed,
    reservation_view,
)
from evals.domains.airline.tools.reads import (
    find_customer_by_email,
    find_reservation,
    get_flight_status,
    get_reservation,
    quote_bags,
    quote_change,
    search_flights,
)
from evals.domains.airline.tools.writes import (
    add_checked_bags,
    add_passenger,
    cancel_reservation,
    change_flight,
    correct_passenger_name,
    issue_compensation,
    remove_passenger,
    transfer_to_human,
)
from evals.engine.tools import ToolSet

TOOLS = ToolSet(
    [
        find_reservation,
        find_customer_by_email,
        get_reservation,
        search_flights,
        quote_change,
        quote_bags,
        get_flight_status,
        change_flight,
        cancel_reservation,
        add_checked_bags,
        correct_passenger_name,
        add_passenger,
        remove_passenger,
        issue_compensation,
        transfer_to_human,
    ]
)

__all__ = [
    "TOOLS",
    "HandoffCategory",
    "add_checked_bags",
    "add_passenger",
    "cancel_reservation",
    "change_flight",
    "correct_passenger_name",
    "find_customer_by_email",
    "find_reservation",
    "flight_view",
    "get_flight_status",
    "get_reservation",
    "issue_compensation",
    "money_arg",
    "quote_bags",
    "quote_change",
    "remove_passenger",
    "require_confirmed",
    "reservation_view",
    "search_flights",
    "transfer_to_human",
]
