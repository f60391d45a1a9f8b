"""What every compositional task generator shares (evals/domains/*/tasks): a recipe's `Part`,
the table of single and compound recipes, the loop that crosses them with the identity
variants, the task built from the parts, and the scenario sentences a customer is given.

A domain keeps what is its own: the recipes, which customer a variant talks to, what the
customer knows and how it words each request (`describe`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Generic, NamedTuple, TypeVar

from evals.engine.task import Assertion, GoldCall, Scenario, Task, kind_of

# A refusal is communicated with one of these words (English and Chinese) beside the reason.
REFUSAL_MARKERS = ("can't", "cannot", "unable", "not able", "not possible", "无法", "不能")
# A hand-off is communicated with one of these.
TRANSFER_WORDS = ("transfer", "转接", "转人工")
FORGOT_EMAIL = "You do not remember which email your account uses."
# The instruction to a customer whose requests depend on each other, and the one most domains
# close with.
IN_ORDER = "Ask for these in this order; the second needs the first. "
ACCEPT_REFUSAL_OR_TRANSFER = (
    "Accept a refusal if the agent explains the policy; accept a transfer to a human."
)

Request = dict[str, Any]
K = TypeVar("K")
R = TypeVar("R")


class Part(NamedTuple):
    """One request of a task: what the customer asks (the scenario's; only what it wants,
    never whether the policy allows it), the gold writes, what the agent must say (each entry a
    tuple of alternatives), what it must have looked up (each entry a tuple of alternative
    READs; see `Task.required_reads`) and whether the policy refuses it. Dual control: the
    customer's own writes a right outcome includes (`user_gold`) and the assertions that judge
    its side (`assertions`)."""

    request: Request
    gold: Sequence[GoldCall]
    communicate: Sequence[tuple[str, ...]]
    reads: tuple[tuple[GoldCall, ...], ...] = ()
    refused: bool = False
    user_gold: Sequence[GoldCall] = ()
    assertions: Sequence[Assertion] = ()


def refusal(
    request: Request,
    why: tuple[str, ...],
    *reads: tuple[GoldCall, ...],
    markers: tuple[str, ...] = REFUSAL_MARKERS,
) -> Part:
    """A request the policy refuses: nothing changes; the agent must have read the records the
    rule decides on (`reads`) and say it cannot (one of `markers`) with the rule's reason
    (`why`, in the words of the domain's policy.md or policy.zh.md)."""
    return Part(request, [], [markers, why], reads, refused=True)


class Row(NamedTuple, Generic[K, R]):
    """One recipe of a domain's table: its name, what picks the customer (a world profile, a
    currency pool, the caller variants...), its parts, whether the customer must ask in order,
    and whether it is a compound (several requests)."""

    name: str
    key: K
    recipes: tuple[R, ...]
    ordered: bool
    compound: bool


def recipe_rows(
    singles: Mapping[str, tuple[K, tuple[R, ...]]],
    compounds: Mapping[str, tuple[K, tuple[R, ...], bool]],
) -> list[Row[K, R]]:
    """The singles, then the compounds, in their tables' order."""
    return [Row(name, key, parts, False, False) for name, (key, parts) in singles.items()] + [
        Row(name, key, parts, ordered, True) for name, (key, parts, ordered) in compounds.items()
    ]


def by_compound(
    single: Sequence[str], compound: Sequence[str]
) -> Callable[[Row[Any, Any]], Sequence[str]]:
    """A row's variants: `single` for a single request, `compound` for a compound."""
    return lambda row: compound if row.compound else single


class Built(NamedTuple):
    """What a domain makes of one row and variant: the parts (the row's recipes on the customer
    the variant talks to), the scenario from the parts' requests, and the world's seed."""

    parts: Sequence[Part]
    scenario: Callable[[list[Request]], Scenario]
    world_seed: int


def compose(
    domain: str,
    rows: Sequence[Row[K, R]],
    *,
    variants: Callable[[Row[K, R]], Sequence[str]],
    make: Callable[[int, Row[K, R], int, str], Built],
    smoke: set[str] | frozenset[str],
    handoff: tuple[str, str] = ("transfer_to_human", "category"),
) -> tuple[Task, ...]:
    """Every row crossed with its variants, numbered in that order: `make(row_index, row,
    variant_index, variant)` builds each task's parts and scenario (`compose_task`);
    "name/variant" in `smoke` joins the smoke split."""
    tasks: list[Task] = []
    for k, row in enumerate(rows):
        for v_index, variant in enumerate(variants(row)):
            built = make(k, row, v_index, variant)
            task = compose_task(
                domain=domain,
                n=len(tasks),
                name=row.name,
                variant=variant,
                parts=built.parts,
                scenario=built.scenario,
                world_seed=built.world_seed,
                handoff=handoff,
            )
            if f"{row.name}/{variant}" in smoke:
                task = with_split(task, "smoke")
            tasks.append(task)
    return tuple(tasks)


def with_split(task: Task, split: str) -> Task:
    return replace(task, splits=(*task.splits, split))


def compose_task(
    *,
    domain: str,
    n: int,
    name: str,
    variant: str,
    parts: Sequence[Part],
    scenario: Callable[[list[Request]], Scenario],
    world_seed: int,
    handoff: tuple[str, str] = ("transfer_to_human", "category"),
) -> Task:
    """Task n of `domain` from its parts: the gold writes, what to say and look up in the
    parts' order; its kind from whether a part is refused and whether the gold hands off
    (`handoff`: the hand-off tool and its argument that names where to)."""
    requests = [p.request for p in parts]
    gold = tuple(g for p in parts for g in p.gold)
    tool, key = handoff
    category = next((str(g.arguments[key]) for g in gold if g.name == tool), "")
    return Task(
        id=f"{domain}-{n:03d}-{name}-{variant}",
        domain=domain,
        kind=kind_of(refused=any(p.refused for p in parts), gold=gold, handoff=category),
        scenario=scenario(requests),
        gold=gold,
        world_seed=world_seed,
        handoff_category=category,
        communicate=tuple(x for p in parts for x in p.communicate),
        intents=tuple(r["intent"] for r in requests),
        user_gold=tuple(g for p in parts for g in p.user_gold),
        assertions=tuple(a for p in parts for a in p.assertions),
        required_reads=tuple(r for p in parts for r in p.reads),
    )


def by_profile(rows: Sequence[R], profiles: Sequence[Any], per_profile: int) -> dict[str, list[R]]:
    """A world's rows cut into its profiles' groups: profile i holds rows [i*n, (i+1)*n)."""
    return {
        p.name: list(rows[i * per_profile : (i + 1) * per_profile]) for i, p in enumerate(profiles)
    }


# -- the scenario's sentences -------------------------------------------------------------------


def wants(requests: Sequence[Request], describe: Callable[[Request], str]) -> str:
    """The scenario's reason: every request in the customer's words, in order."""
    return "You want to " + "; then ".join(describe(r) for r in requests) + "."


def wrong_dob(dob: str) -> str:
    """A plausible slip on a YYYY-MM-DD date of birth: day and month swapped, or the year off
    by one when the swap would change nothing or make no date."""
    year, month, day = dob.split("-")
    if int(day) <= 12 and day != month:
        return f"{year}-{day}-{month}"
    return f"{int(year) + 1}-{month}-{day}"


def slip(what: str, wrong: str) -> str:
    """The instruction for a customer who first gives a wrong value (empty when it does not)."""
    return f"At first you give {what} as {wrong} by mistake. " if wrong else ""


def identity_scenario(
    *,
    requests: list[Request],
    describe: Callable[[Request], str],
    identity: Request,
    known: str,
    gives_email: bool,
    ordered: bool,
    in_order: str,
    slipped: str,
    closing: str,
) -> Scenario:
    """The scenario of a customer who identifies by email, or by other facts without
    remembering its email (`identity["email"]` is then in its data, not in what it knows),
    possibly slipping on one of them first (`slipped`, see `slip`)."""
    if gives_email:
        known += f" Your email is {identity['email']}."
    return Scenario(
        reason=wants(requests, describe),
        known_info=known,
        unknown_info="" if gives_email else FORGOT_EMAIL,
        instructions=(in_order if ordered else "") + slipped + closing,
        data={"identity": identity, "requests": requests, "ordered": ordered},
    )
