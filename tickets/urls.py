from django.urls import path

from tickets.views import inbox, intake, notifications, queues, ticket, ticket_actions

app_name = "tickets"

urlpatterns = [
    path("", inbox.inbox, name="inbox"),
    path("new/", intake.ticket_new, name="new"),
    path("new/customers/", intake.customer_lookup, name="customer_lookup"),
    path("queues/", queues.queue_list, name="queue_list"),
    path("queues/new/", queues.queue_new, name="queue_new"),
    path("queues/duty/", queues.member_duty, name="member_duty"),
    path("queues/<int:queue_id>/", queues.queue_edit, name="queue_edit"),
    path("bulk/", inbox.bulk, name="bulk"),
    path("duty/", inbox.duty, name="duty"),
    path("notifications/", notifications.notifications, name="notifications"),
    path("notifications/read/", notifications.notifications_read, name="notifications_read"),
    path("<int:ticket_id>/", ticket.ticket_detail, name="detail"),
    path("<int:ticket_id>/presence/", ticket.presence, name="presence"),
    path("<int:ticket_id>/reply/", ticket_actions.reply, name="reply"),
    path("<int:ticket_id>/note/", ticket_actions.note, name="note"),
    path("<int:ticket_id>/notes/<int:note_id>/edit/", ticket_actions.note_edit, name="note_edit"),
    path("<int:ticket_id>/assign/", ticket_actions.assign, name="assign"),
    path("<int:ticket_id>/take/", ticket_actions.take, name="take"),
    path("<int:ticket_id>/status/", ticket_actions.status, name="status"),
    path("<int:ticket_id>/priority/", ticket_actions.priority, name="priority"),
    path("<int:ticket_id>/tags/", ticket_actions.tags, name="tags"),
    path("<int:ticket_id>/merge/", ticket_actions.merge, name="merge"),
]
