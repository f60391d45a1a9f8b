# ruff: noqa: RUF001 -- the Chinese expected here is written with full-width punctuation.
"""The audit trail shows a stored code (a refund's status, a ticket's priority) by its label in
the reader's language, the code itself kept in the value's tooltip for auditors; a refund
decision's notification reads in its reader's language too."""

from __future__ import annotations

import re

from django.utils import translation

from identity.audit import audit_record
from identity.models import Operator
from payments_sandbox.domain import Money
from payments_sandbox.services import payment_capture, refund_reject, refund_request
from tests.conftest import verified_client
from tickets.models import Notification


def _audit_page(reader: Operator, language: str) -> str:
    reader.language = language
    reader.save(update_fields=["language"])
    return verified_client(reader).get("/audit/", {"action": "refund.request"}).content.decode()


def test_a_refunds_status_reads_as_its_label_with_the_code_in_the_tooltip(
    alice: Operator, audrey: Operator
) -> None:
    payment = payment_capture(actor=None, amount=Money.parse("50.00", "USD"))
    refund_request(actor=alice, payment_id=payment.pk, amount="12.00", reason="damaged")
    chinese = _audit_page(audrey, "zh-hans")
    assert re.search(
        r'<strong title="pending_approval" data-code="pending_approval">\s*待审批\s*</strong>',
        chinese,
    ), chinese
    english = _audit_page(audrey, "en")
    assert 'data-code="pending_approval">Pending approval</strong>' in english
    # A value of a field without codes (the currency) is shown as stored.
    assert '<strong class="mono">USD</strong>' in english


def test_a_value_that_is_not_one_of_the_fields_codes_is_shown_as_stored(
    alice: Operator, audrey: Operator
) -> None:
    audit_record(
        actor=alice,
        action="refund.request",
        target_type="payments_sandbox.refund",
        target_id="99",
        after={"status": "made_up_state"},
    )
    page = _audit_page(audrey, "zh-hans")
    assert '<strong class="mono">made_up_state</strong>' in page
    assert 'data-code="made_up_state"' not in page


def test_a_refund_decisions_notification_reads_in_the_requesters_language(
    alice: Operator, bob: Operator
) -> None:
    payment = payment_capture(actor=None, amount=Money.parse("50.00", "USD"))
    refund = refund_request(actor=alice, payment_id=payment.pk, amount="12.00", reason="damaged")
    refund_reject(actor=bob, refund_id=refund.pk, reason="outside the window")
    notification = Notification.objects.get(recipient=alice, kind="refund.rejected")
    assert notification.title_key == "refund.rejected"
    assert notification.title == f"Refund #{refund.pk} of {refund.money.format()} rejected by Bob"
    with translation.override("zh-hans"):
        assert notification.title_text == (
            f"退款 #{refund.pk}（{refund.money.format()}）已被 Bob 拒绝"
        )
