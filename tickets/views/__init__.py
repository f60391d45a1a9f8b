"""The operator UI of the inbox, one module per page: the inbox (inbox), a ticket (ticket, and
what it posts in ticket_actions), notifications, opening a ticket for a customer (intake) and
queue administration (queues); guards says who may use them."""
