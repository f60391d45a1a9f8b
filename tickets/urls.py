from django.urls import path

from tickets.views import inbox as views
from tickets.views import intake, queues

app_name = "tickets"

urlpatterns = [
    path("", views.inbox, name="inbox"),
    path("new/", intake.ticket_new, name="new"),
    path("new/customers/", intake.customer_lookup, name="customer_lookup"),
    path("queues/", queues.queue_list, name="queue_list"),
    path("queues/new/", queues.queue_new, name="queue_new"),
    path("queues/duty/", queues.member_duty, name="member_duty"),
    path("queues/<int:queue_id>/", queues.queue_edit, name="queue_edit"),
    path("bulk/", views.bulk, name="bulk"),
    path("duty/", views.duty, name="duty"),
    path("notifications/", views.notifications, name="notifications"),
    path("notifications/read/", views.notifications_read, name="notifications_read"),
    path("<int:ticket_id>/", views.ticket_detail, name="detail"),
    path("<int:ticket_id>/presence/", views.presence, name="presence"),
    path("<int:ticket_id>/reply/", views.reply, name="reply"),
    path("<int:ticket_id>/note/", views.note, name="note"),
    path("<int:ticket_id>/notes/<int:note_id>/edit/", views.note_edit, name="note_edit"),
    path("<int:ticket_id>/assign/", views.assign, name="assign"),
    path("<int:ticket_id>/take/", views.take, name="take"),
    path("<int:ticket_id>/status/", views.status, name="status"),
    path("<int:ticket_id>/priority/", views.priority, name="priority"),
    path("<int:ticket_id>/tags/", views.tags, name="tags"),
    path("<int:ticket_id>/merge/", views.merge, name="merge"),
]
