"""The inbox REST API: one view per operation, documented with drf-spectacular; one module
per entity (tickets, messages, escalations, notifications).

Humans call it with their verified session; the AI agent's service principal with a bearer
token limited by scopes (`escalations:create`, `tickets:read`, `tickets:write`). Ticket writes
carry the `version` the caller saw; a stale one gets 409 and changes nothing. The escalation
endpoint is idempotent on the Idempotency-Key header.
"""
