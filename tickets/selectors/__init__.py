"""Every read of the inbox, one module per entity: tickets (the inbox list and search, a
ticket's page, the dashboard's counts, merge candidates), queues, operators as the inbox sees
them, notifications and customers. Import them from here: `from tickets import selectors`."""

from tickets.selectors.customers import (
    customer_get,
    customer_search,
)
from tickets.selectors.notifications import (
    notification_list,
    notification_unread_count,
)
from tickets.selectors.operators import (
    assignable_operators,
    availability_of,
    operator_label,
    presence_others,
)
from tickets.selectors.queues import (
    queue_get_for_admin,
    queue_list_for,
    queue_list_for_admin,
    queue_member_candidates,
)
from tickets.selectors.tickets import (
    LIST_FIELDS,
    ROW_VALUES,
    SEARCH_VIEW,
    SORT_LABELS,
    SORTS,
    VIEWS,
    InboxFilters,
    TicketDetail,
    inbox_counts,
    merge_candidates,
    tag_names_by_ticket,
    ticket_detail_for_api,
    ticket_get_for_operator,
    ticket_ids_page_source,
    ticket_list_for_inbox,
    ticket_next_for,
    ticket_rows,
    ticket_versions,
    ticket_visible,
    views_for,
)

__all__ = [
    "LIST_FIELDS",
    "ROW_VALUES",
    "SEARCH_VIEW",
    "SORTS",
    "SORT_LABELS",
    "VIEWS",
    "InboxFilters",
    "TicketDetail",
    "assignable_operators",
    "availability_of",
    "customer_get",
    "customer_search",
    "inbox_counts",
    "merge_candidates",
    "notification_list",
    "notification_unread_count",
    "operator_label",
    "presence_others",
    "queue_get_for_admin",
    "queue_list_for",
    "queue_list_for_admin",
    "queue_member_candidates",
    "tag_names_by_ticket",
    "ticket_detail_for_api",
    "ticket_get_for_operator",
    "ticket_ids_page_source",
    "ticket_list_for_inbox",
    "ticket_next_for",
    "ticket_rows",
    "ticket_versions",
    "ticket_visible",
    "views_for",
]
