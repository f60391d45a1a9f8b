from django.urls import path

from tickets import api

urlpatterns = [
    path("tickets", api.TicketListApi.as_view(), name="tickets-list"),
    path("tickets/<int:ticket_id>", api.TicketDetailApi.as_view(), name="tickets-detail"),
    path("tickets/<int:ticket_id>/replies", api.TicketReplyApi.as_view(), name="tickets-reply"),
    path("tickets/<int:ticket_id>/notes", api.TicketNoteApi.as_view(), name="tickets-note"),
    path(
        "tickets/<int:ticket_id>/notes/<int:note_id>",
        api.TicketNoteEditApi.as_view(),
        name="tickets-note-edit",
    ),
    path(
        "tickets/<int:ticket_id>/assignment",
        api.TicketAssignmentApi.as_view(),
        name="tickets-assignment",
    ),
    path("tickets/<int:ticket_id>/status", api.TicketStatusApi.as_view(), name="tickets-status"),
    path(
        "tickets/<int:ticket_id>/priority", api.TicketPriorityApi.as_view(), name="tickets-priority"
    ),
    path("tickets/<int:ticket_id>/tags", api.TicketTagsApi.as_view(), name="tickets-tags"),
    path("tickets/<int:ticket_id>/merge", api.TicketMergeApi.as_view(), name="tickets-merge"),
    path(
        "tickets/<int:ticket_id>/customer-messages",
        api.TicketCustomerMessageApi.as_view(),
        name="tickets-customer-message",
    ),
    path("escalations", api.EscalationCreateApi.as_view(), name="escalations-create"),
    path("notifications", api.NotificationListApi.as_view(), name="notifications-list"),
    path("notifications/read", api.NotificationReadApi.as_view(), name="notifications-read"),
]
