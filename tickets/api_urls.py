from django.urls import path

from tickets.api.escalations import EscalationCreateApi
from tickets.api.messages import (
    TicketCustomerMessageApi,
    TicketNoteApi,
    TicketNoteEditApi,
    TicketReplyApi,
)
from tickets.api.notifications import NotificationListApi, NotificationReadApi
from tickets.api.tickets import (
    TicketAssignmentApi,
    TicketDetailApi,
    TicketListApi,
    TicketMergeApi,
    TicketPriorityApi,
    TicketStatusApi,
    TicketTagsApi,
)

urlpatterns = [
    path("tickets", TicketListApi.as_view(), name="tickets-list"),
    path("tickets/<int:ticket_id>", TicketDetailApi.as_view(), name="tickets-detail"),
    path("tickets/<int:ticket_id>/replies", TicketReplyApi.as_view(), name="tickets-reply"),
    path("tickets/<int:ticket_id>/notes", TicketNoteApi.as_view(), name="tickets-note"),
    path(
        "tickets/<int:ticket_id>/notes/<int:note_id>",
        TicketNoteEditApi.as_view(),
        name="tickets-note-edit",
    ),
    path(
        "tickets/<int:ticket_id>/assignment",
        TicketAssignmentApi.as_view(),
        name="tickets-assignment",
    ),
    path("tickets/<int:ticket_id>/status", TicketStatusApi.as_view(), name="tickets-status"),
    path("tickets/<int:ticket_id>/priority", TicketPriorityApi.as_view(), name="tickets-priority"),
    path("tickets/<int:ticket_id>/tags", TicketTagsApi.as_view(), name="tickets-tags"),
    path("tickets/<int:ticket_id>/merge", TicketMergeApi.as_view(), name="tickets-merge"),
    path(
        "tickets/<int:ticket_id>/customer-messages",
        TicketCustomerMessageApi.as_view(),
        name="tickets-customer-message",
    ),
    path("escalations", EscalationCreateApi.as_view(), name="escalations-create"),
    path("notifications", NotificationListApi.as_view(), name="notifications-list"),
    path("notifications/read", NotificationReadApi.as_view(), name="notifications-read"),
]
