"""Reading numbers from query strings: one place that turns bad input into a clear error.

An id beyond what a 64-bit database column holds would reach the database driver and fail
there (OverflowError on SQLite, NumericValueOutOfRange on PostgreSQL) as a 500; here it is a
ValidationFailed naming the parameter, which the API answers with 400 in the error shape.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from backoffice.errors import ValidationFailed

# The range of a signed 64-bit column (BigAutoField, BigIntegerField).
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def fits_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def query_int(value: str | None, name: str) -> int | None:
    """`value` as an integer that a 64-bit column can hold; None when absent or blank;
    ValidationFailed (naming `name`) when it is not an integer or does not fit."""
    if value is None or not value.strip():
        return None
    try:
        number = int(value.strip())
    except ValueError:
        raise ValidationFailed(
            _("Not a number."), fields={name: [_("Must be an integer.")]}
        ) from None
    if not fits_int64(number):
        raise ValidationFailed(
            _("A number is out of range."),
            fields={
                name: [_("Must be between %(lo)d and %(hi)d.") % {"lo": INT64_MIN, "hi": INT64_MAX}]
            },
        )
    return number


def query_id_or_none(value: str | None) -> int | None:
    """A positive id for a lenient UI filter: None for anything that is not one (so the
    filter is ignored, as for any other text), including numbers no row can have."""
    text = (value or "").strip()
    if not text.isdigit() or not text.isascii():
        return None
    number = int(text)
    return number if 0 < number <= INT64_MAX else None
