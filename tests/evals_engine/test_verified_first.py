"""The rules' shared opening: the hand-off always, nothing else before the customer is verified,
then the domain's own checks with the verified id."""

from evals.engine.policy.verified import verified_first
from evals.engine.world import World

seen: list[tuple[str, str]] = []


@verified_first("Verify the customer first.", transfer="hand_over")
def check(world, tool, args, verified):
    seen.append((tool, verified))
    return []


def _world(verified=""):
    world = World({})
    world.session.verified_customer_id = verified
    return world


def test_an_unverified_agent_cannot_write_and_the_domain_check_never_runs():
    seen.clear()
    violations = check(_world(), "refund", {"amount": "10"})
    assert [(v.code, v.message) for v in violations] == [
        ("identity_not_verified", "Verify the customer first.")
    ]
    assert seen == []


def test_the_hand_off_named_by_the_domain_is_allowed_unverified_and_no_other_name_is():
    seen.clear()
    assert check(_world(), "hand_over", {}) == []
    assert [v.code for v in check(_world(), "transfer_to_human", {})] == ["identity_not_verified"]
    assert seen == []


def test_once_verified_the_domain_check_runs_with_the_verified_id():
    seen.clear()
    assert check(_world("C1"), "refund", {}) == []
    assert seen == [("refund", "C1")]
