"""Reads of customers: the new-ticket page's picker."""

from __future__ import annotations

from django.db.models import Case, Count, Q, Value, When
from django.db.models.functions import Upper

from tickets.models import Customer


def customer_search(*, query: str, limit: int = 10) -> list[Customer]:
    """Customers whose email or external id is exactly `query` first, then whose name,
    email or external id contains it; with how many tickets each has."""
    query = query.strip()
    if len(query) < 2:
        return []
    exact = Q(external_id=query) | Q(email_upper=Upper(Value(query)))
    rows = (
        Customer.objects.alias(
            email_upper=Upper("email"),
            rank=Case(When(exact, then=Value(0)), default=Value(1)),
        )
        .filter(
            exact
            | Q(name__icontains=query)
            | Q(email__icontains=query)
            | Q(external_id__icontains=query)
        )
        .annotate(ticket_count=Count("tickets"))
        .order_by("rank", "name", "id")
    )
    return list[Customer](rows[:limit])


def customer_get(*, customer_id: int) -> Customer | None:
    return Customer.objects.filter(pk=customer_id).annotate(ticket_count=Count("tickets")).first()
