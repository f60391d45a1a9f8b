"""What the domains' task generators share (evals.engine.composition), the identity tool they
share (evals.engine.identity), the world's record lookups and the package layout a domain is
registered from (evals.engine.domain.package_domain)."""

from dataclasses import dataclass

import pytest

from evals.domains.clinic_admin.rules import check_message
from evals.domains.membership.population import build_world as membership_world
from evals.domains.telecom.tools import ASSERTIONS
from evals.engine.composition import (
    FORGOT_EMAIL,
    REFUSAL_MARKERS,
    Built,
    Part,
    by_compound,
    by_profile,
    compose,
    compose_task,
    identity_scenario,
    recipe_rows,
    refusal,
    slip,
    wants,
    wrong_dob,
)
from evals.engine.domain import package_domain
from evals.engine.errors import ToolError
from evals.engine.identity import email_lookup
from evals.engine.messages import ToolCall
from evals.engine.task import Assertion, GoldCall, Scenario, TaskKind
from evals.engine.world import World


@pytest.mark.parametrize(
    ("dob", "slipped"),
    [
        ("1988-04-12", "1988-12-04"),  # day and month swapped
        ("1990-07-25", "1991-07-25"),  # no month 25: the year instead
        ("1985-03-03", "1986-03-03"),  # swapping would change nothing
    ],
)
def test_a_wrong_date_of_birth_is_a_plausible_slip_never_the_right_one(dob, slipped):
    assert wrong_dob(dob) == slipped != dob


def test_the_scenario_sentences_say_every_request_in_order_and_the_slip_only_when_there_is_one():
    requests = [{"intent": "a"}, {"intent": "b"}]
    assert wants(requests, lambda r: f"do {r['intent']}") == "You want to do a; then do b."
    assert slip("your postcode", "") == ""
    assert slip("your postcode", "40231") == "At first you give your postcode as 40231 by mistake. "


def _scenario(*, gives_email: bool, ordered: bool, slipped: str = "") -> Scenario:
    return identity_scenario(
        requests=[{"intent": "x"}],
        describe=lambda r: "x",
        identity={"email": "ava@example.com", "gives": "email" if gives_email else "name"},
        known="You are Ava.",
        gives_email=gives_email,
        ordered=ordered,
        in_order="In order. ",
        slipped=slipped,
        closing="Accept.",
    )


def test_a_customer_who_gives_its_email_knows_it_and_one_who_does_not_has_forgotten_it():
    by_email = _scenario(gives_email=True, ordered=False)
    assert by_email.known_info == "You are Ava. Your email is ava@example.com."
    assert by_email.unknown_info == ""
    by_name = _scenario(gives_email=False, ordered=True, slipped="Slip. ")
    assert "ava@example.com" not in by_name.known_info
    assert by_name.unknown_info == FORGOT_EMAIL
    assert by_name.instructions == "In order. Slip. Accept."
    assert by_name.data["identity"]["email"] == "ava@example.com"  # the scripted user's own
    assert by_name.data["ordered"] is True and by_name.data["requests"] == [{"intent": "x"}]


def test_a_refusal_writes_nothing_says_it_cannot_and_why_after_its_lookups():
    read = (GoldCall("get_x", {"id": "1"}),)
    part = refusal({"intent": "x"}, ("the reason",), read)
    assert part.gold == [] and part.refused and part.reads == (read,)
    assert part.communicate == [REFUSAL_MARKERS, ("the reason",)]
    assert refusal({"intent": "x"}, ("why",), markers=("no",)).communicate[0] == ("no",)


def test_recipe_rows_list_the_singles_then_the_compounds_in_their_order():
    rows = recipe_rows({"a": ("p1", (1,)), "b": ("p2", (2,))}, {"c": ("p1", (1, 2), True)})
    assert [(r.name, r.key, r.recipes, r.ordered, r.compound) for r in rows] == [
        ("a", "p1", (1,), False, False),
        ("b", "p2", (2,), False, False),
        ("c", "p1", (1, 2), True, True),
    ]


def _part(*gold: GoldCall, refused: bool = False, **kw) -> Part:
    return Part({"intent": "i"}, list(gold), [("said",)], refused=refused, **kw)


def _task(parts, **kw):
    return compose_task(
        domain="d",
        n=7,
        name="name",
        variant="v",
        parts=parts,
        scenario=lambda requests: Scenario(reason=str(len(requests))),
        world_seed=3,
        **kw,
    )


def test_a_task_is_numbered_named_and_of_the_kind_its_parts_make():
    write = GoldCall("w", {"x": 1})
    handoff = GoldCall("transfer_to_human", {"category": "dispute"})
    action = _task([_part(write), _part(write)])
    assert action.id == "d-007-name-v" and action.world_seed == 3
    assert action.kind is TaskKind.ACTION and action.gold == (write, write)
    assert action.intents == ("i", "i") and action.scenario.reason == "2"
    assert action.communicate == (("said",), ("said",))
    assert _task([_part(refused=True), _part()]).kind is TaskKind.REFUSAL
    # A refused part beside a write: the write is what the gold checks.
    assert _task([_part(write), _part(refused=True)]).kind is TaskKind.ACTION
    handed = _task([_part(handoff)])
    assert handed.kind is TaskKind.HANDOFF and handed.handoff_category == "dispute"
    # A domain whose hand-off is another tool names it; the default tool is then no hand-off.
    desk = GoldCall("transfer_to_staff", {"desk": "billing"})
    assert _task([_part(desk)], handoff=("transfer_to_staff", "desk")).handoff_category == "billing"
    assert _task([_part(desk)]).kind is TaskKind.ACTION


def test_the_customers_own_writes_and_assertions_are_carried_in_order():
    mine = GoldCall("restart_device", {})
    check = Assertion("phone_has_service", {}, side="user")
    task = _task([_part(user_gold=[mine], assertions=[check]), _part(user_gold=[mine])])
    assert task.user_gold == (mine, mine) and task.assertions == (check,)


def test_compose_crosses_every_row_with_its_variants_numbers_and_tags_the_smoke_tasks():
    rows = recipe_rows({"a": ("k", ()), "b": ("k", ())}, {"c": ("k", (), True)})
    made = []
    write = GoldCall("w", {})

    def make(k, row, v_index, variant):
        made.append((k, row.name, v_index, variant))
        scenario = lambda requests: Scenario(reason=f"{row.name} {variant}")  # noqa: E731
        return Built([_part(write)], scenario, 5)

    tasks = compose("d", rows, variants=by_compound(("x", "y"), ("x",)), make=make, smoke={"b/y"})
    assert made == [
        (0, "a", 0, "x"),
        (0, "a", 1, "y"),
        (1, "b", 0, "x"),
        (1, "b", 1, "y"),
        (2, "c", 0, "x"),
    ]
    assert [t.id for t in tasks] == [
        "d-000-a-x",
        "d-001-a-y",
        "d-002-b-x",
        "d-003-b-y",
        "d-004-c-x",
    ]
    assert [t.id for t in tasks if "smoke" in t.splits] == ["d-003-b-y"]
    assert tasks[4].scenario.reason == "c x" and {t.world_seed for t in tasks} == {5}
    desk = GoldCall("transfer_to_staff", {"desk": "billing"})
    staffed = compose(
        "d",
        rows[:1],
        variants=lambda row: ("x",),
        make=lambda *a: Built([_part(desk)], lambda r: Scenario(reason=""), 0),
        smoke=set(),
        handoff=("transfer_to_staff", "desk"),
    )
    assert staffed[0].kind is TaskKind.HANDOFF and staffed[0].handoff_category == "billing"


def test_rows_are_cut_into_profiles_in_order():
    @dataclass
    class Profile:
        name: str

    groups = by_profile(list(range(6)), [Profile("p"), Profile("q")], 3)
    assert groups == {"p": [0, 1, 2], "q": [3, 4, 5]}


# -- the world's lookups and the shared identity tool ------------------------------------------


@dataclass(frozen=True)
class Person:
    id: str
    email: str
    team: str


def _world() -> World:
    people = {
        "C1": Person("C1", "ava@example.com", "red"),
        "C2": Person("C2", "bo@example.com", "blue"),
        "C3": Person("C3", "cy@example.com", "red"),
    }
    return World({"customers": people, "members": dict(people)})


def test_a_missing_record_is_a_tool_error_in_the_words_given_for_the_model():
    world = _world()
    assert world.record("customers", "C2", "unused").email == "bo@example.com"
    with pytest.raises(ToolError, match="No customer C9; ids look like C1"):
        world.record("customers", "C9", "No customer C9; ids look like C1")
    assert [p.id for p in world.records_where("customers", team="red")] == ["C1", "C3"]
    assert world.records_where("customers", team="red", email="cy@example.com")[0].id == "C3"
    assert world.records_where("customers", team="green") == []


DOC = """Verify the customer by email.

    Args:
        email: The email the customer gave.
    """


def test_the_email_lookup_verifies_only_the_holder_of_that_email():
    find = email_lookup(DOC)
    assert find.name == "find_customer_by_email"
    assert find.description == "Verify the customer by email."
    assert find.schema["function"]["parameters"]["properties"]["email"]["description"]
    world = _world()
    result, _ = find.invoke(world, ToolCall("c", find.name, '{"email": "  BO@example.com "}'))
    assert result.content == '{"customer_id":"C2"}' and world.session.verified_customer_id == "C2"
    other = _world()
    result, _ = find.invoke(other, ToolCall("c", find.name, '{"email": "bo@example.org"}'))
    assert result.error and "No customer with email 'bo@example.org'" in result.content
    assert other.session.verified_customer_id == ""


def test_the_email_lookup_serves_members_and_a_domains_own_answer():
    find = email_lookup(DOC, table="members", who="member")
    assert find.name == "find_member_by_email"
    result, _ = find.invoke(_world(), ToolCall("c", find.name, '{"email": "nobody@x.org"}'))
    assert "No member with email" in result.content
    rich = email_lookup(DOC, answer=lambda world, person: {"team": person.team})
    assert rich.fn(_world(), email="cy@example.com") == {"team": "red"}


# -- registering a domain from its package ----------------------------------------------------


def _factory(**kw):
    raise AssertionError("not called")


def test_a_domain_package_is_read_by_its_layout_with_its_optional_parts():
    clinic = package_domain(
        "evals.domains.clinic_admin",
        description="d",
        reference_agent=_factory,
        scripted_user=_factory,
    )
    assert clinic.name == "clinic_admin" and clinic.message_rules is check_message
    assert clinic.policy.startswith("#") and clinic.scripted_languages == ("en", "zh-Hans")
    assert clinic.assertions == {}
    telecom = package_domain(
        "evals.domains.telecom",
        description="d",
        reference_agent=_factory,
        scripted_user=_factory,
        world_module="population",
    )
    assert telecom.assertions == ASSERTIONS and telecom.message_rules is None
    membership = package_domain(
        "evals.domains.membership",
        description="d",
        reference_agent=_factory,
        scripted_user=_factory,
        world_module="population",
    )
    assert membership.build_world is membership_world


def test_a_package_missing_a_part_of_the_layout_is_not_a_domain():
    with pytest.raises(ModuleNotFoundError):
        package_domain(
            "evals.domains.tau2_mock",  # a published domain, laid out otherwise
            description="d",
            reference_agent=_factory,
            scripted_user=_factory,
        )
