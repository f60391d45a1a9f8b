from __future__ import annotations

from identity.models import Role
from tests.conftest import make_service_token
from tickets import seed, seed_data
from tickets.models import Escalation, Queue, Ticket


def test_seed_fills_the_inbox_across_sla_states_and_is_idempotent(make_operator) -> None:
    operators = {
        "alice": make_operator("alice", [Role.AGENT]),
        "carol": make_operator("carol", [Role.AGENT]),
        "sam": make_operator("sam", [Role.SUPERVISOR]),
    }
    operators["agent-runtime"], _ = make_service_token(["escalations:create"])
    lines = seed.seed(operators=operators)
    assert "queues" in lines[0]
    assert Queue.objects.count() == 4
    total = Ticket.objects.count()
    assert total == len(seed_data.TICKETS) + len(seed_data.ESCALATIONS)
    assert Escalation.objects.count() == len(seed_data.ESCALATIONS)
    assert Ticket.objects.filter(sla_breached=True).exists()
    assert Ticket.objects.filter(sla_near_breach=True).exists()
    assert Ticket.objects.filter(sla_paused_since__isnull=False).exists()
    assert Ticket.objects.filter(status="resolved").exists()
    assert operators["sam"].notifications.filter(kind="mention").exists()
    seed.seed(operators=operators)
    assert Ticket.objects.count() == total
