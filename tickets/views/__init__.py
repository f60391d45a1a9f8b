"""The operator UI of the inbox, one module per area: the inbox and ticket pages (inbox),
opening a ticket for a customer (intake) and queue administration (queues)."""
