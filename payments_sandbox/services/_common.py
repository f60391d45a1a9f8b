"""Helpers shared by the payment services: locking, mode checks, transitions."""

from __future__ import annotations

from typing import Any

from django.db import connections, router
from django.utils.translation import gettext

from backoffice.errors import Conflict, NotFound, Unprocessable, ValidationFailed
from identity.audit import snapshot
from payments_sandbox.domain import (
    AmountError,
    CurrencyError,
    InvalidTransition,
    Money,
    RuleViolation,
    refund_transition,
)
from payments_sandbox.models import Payment, Refund
from payments_sandbox.modes import assert_mode

REFUND_AUDIT_FIELDS = (
    "status",
    "amount",
    "currency",
    "payment",
    "predicted_outcome",
    "decided_by",
    "decision_reason",
    "provider_refund_id",
    "provider_status",
    "failure_reason",
)


def refund_snapshot(refund: Refund) -> dict[str, Any]:
    return snapshot(refund, REFUND_AUDIT_FIELDS)


_PAYMENT_TABLE = Payment._meta.db_table


def lock_payment(payment_id: int) -> Payment:
    # The row lock serialises every refund decision on one payment: the refundable balance
    # is read and the new refund inserted while no other request can do the same. Plain SQL
    # (SELECT … FOR UPDATE by primary key; SQLite's IMMEDIATE transaction already holds the
    # write lock): it runs on every refund request, and building it through the ORM cost
    # more than running it.
    connection = connections[router.db_for_write(Payment)]
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    rows = list(
        Payment.objects.raw(
            f"SELECT * FROM {_PAYMENT_TABLE} WHERE id = %s{lock}",  # noqa: S608
            [payment_id],
        )
    )
    if not rows:
        raise NotFound(gettext("No such payment."))
    payment = rows[0]
    assert_mode(payment)
    return payment


_REFUND_INSERT_FIELDS = [f for f in Refund._meta.concrete_fields if f is not Refund._meta.pk]
# A concrete field always has a column; the filter only narrows `str | None` for mypy.
_REFUND_INSERT_COLUMNS = [f.column for f in _REFUND_INSERT_FIELDS if f.column is not None]
_REFUND_TABLE = Refund._meta.db_table


def insert_refund(refund: Refund) -> None:
    """INSERT a new refund row and set its primary key: `refund.save(force_insert=True)`
    without building the statement through the ORM, which cost more than running it on
    every refund request. Refund has no save() override and no signal receivers."""
    alias = router.db_for_write(Refund)
    connection = connections[alias]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(column) for column in _REFUND_INSERT_COLUMNS)
    values = ", ".join(["%s"] * len(_REFUND_INSERT_COLUMNS))
    params = [
        f.get_db_prep_save(f.pre_save(refund, add=True), connection) for f in _REFUND_INSERT_FIELDS
    ]
    # Identifiers come from the model; values are parameters.
    sql = f"INSERT INTO {quote(_REFUND_TABLE)} ({columns}) VALUES ({values})"  # noqa: S608
    with connection.cursor() as cursor:
        if connection.features.can_return_columns_from_insert:
            cursor.execute(f"{sql} RETURNING id", params)
            refund.pk = cursor.fetchone()[0]
        else:
            cursor.execute(sql, params)
            refund.pk = connection.ops.last_insert_id(cursor, _REFUND_TABLE, "id")
    refund._state.adding = False
    refund._state.db = alias


def lock_refund(refund_id: int) -> Refund:
    refund = (
        Refund.objects.select_for_update(of=("self",))
        .select_related("payment", "requested_by")
        .filter(pk=refund_id)
        .first()
    )
    if refund is None:
        raise NotFound(gettext("No such refund."))
    assert_mode(refund)
    return refund


def move(refund: Refund, target: str) -> None:
    try:
        refund.status = refund_transition(refund.status, target)
    except InvalidTransition as exc:
        raise Conflict(
            gettext("Refund #%(pk)s is %(lower)s and cannot become %(replace)s.")
            % {
                "pk": refund.pk,
                "lower": refund.get_status_display().lower(),
                "replace": target.replace("_", " "),
            },
            code="invalid_transition",
        ) from exc


def parse_amount(amount: Money | str, currency: str) -> Money:
    if isinstance(amount, Money):
        return amount
    try:
        return Money.parse(amount, currency)
    except (AmountError, CurrencyError) as exc:
        raise ValidationFailed(
            str(exc), code="invalid_amount", fields={"amount": [str(exc)]}
        ) from exc


def refuse(violations: list[RuleViolation]) -> Unprocessable:
    return Unprocessable(
        " ".join(v.message for v in violations),
        code=violations[0].code,
        fields={"amount": [v.message for v in violations]},
    )
