"""RefundOut builds its representation directly (the hot path of every refund response);
it must stay exactly what the declared ModelSerializer fields would produce."""

from __future__ import annotations

import datetime as dt
from typing import Any

from rest_framework import serializers

from identity.models import Operator
from payments_sandbox import selectors, services
from payments_sandbox.models import Payment, Refund, RefundStatus
from payments_sandbox.serializers import RefundOut


def declared_representation(refund: Refund) -> dict[str, Any]:
    return serializers.ModelSerializer.to_representation(RefundOut(refund), refund)


def test_refund_out_matches_its_declared_fields_in_every_kind_of_state(
    alice: Operator, bob: Operator, payment: Payment
) -> None:
    fresh = services.refund_request(actor=alice, payment_id=payment.pk, amount="1.00", reason="a")
    approved = services.refund_request(
        actor=alice, payment_id=payment.pk, amount="2.50", reason="b"
    )
    services.refund_approve(actor=bob, refund_id=approved.pk, reason="fine")
    rejected = services.refund_request(
        actor=alice, payment_id=payment.pk, amount="0.07", reason="c"
    )
    services.refund_reject(actor=bob, refund_id=rejected.pk, reason="no")
    Refund.objects.filter(pk=approved.pk).update(
        status=RefundStatus.SUCCEEDED,
        provider_refund_id="sre_1",
        provider_status="succeeded",
        attempts=1,
        completed_at=dt.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=dt.UTC),
    )
    refunds = [fresh] + [selectors.refund_get(refund_id=r.pk) for r in (fresh, approved, rejected)]
    assert {r.status for r in refunds} >= {"pending_approval", "succeeded", "rejected"}
    for refund in refunds:
        ours = RefundOut(refund).data
        assert ours == declared_representation(refund)
        assert list(ours) == list(declared_representation(refund))
