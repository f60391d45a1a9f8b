"""Every registered domain follows the contract in docs/domains.md ("The contract").

Each rule is a `check_*` function returning one message per offence, naming the domain and
the task; the tests run it over the registry (a new domain is checked without a line here),
and each check is shown to fail on a deliberately broken fake domain registered only for that
test. A published-data domain's exemption is an `EXEMPT` entry with its reason, run as a
strict xfail: the check still runs and must still fail, so a stale exemption is reported."""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import evals.domains as registry
from evals.domains import domain_names, get_domain
from evals.engine.adversaries import agent_name as adversary
from evals.engine.domain import Domain
from evals.engine.errors import EngineError
from evals.engine.faults import agent_name as fault
from evals.engine.messages import TerminationReason, Trajectory
from evals.engine.oracle import evaluate, gold_state, replay
from evals.engine.runner import RunSpec, plan, run_unit
from evals.engine.task import GoldCall, Scenario, Task, TaskKind
from evals.engine.tools import Actor, ToolKind

ROOT = Path(__file__).parents[2]
MIN_TASKS = 60
SMOKE = 5
LANGUAGES = ("en", "zh-Hans")
CJK = re.compile(r"[\u4e00-\u9fff]")
# Keys that would hand the customer the answer: what should happen, not what it wants.
ANSWER_KEYS = re.compile(r"expect|outcome|gold|answer|solution|task_kind|verdict", re.I)
TASK_KINDS = {k.value for k in TaskKind}

_PUBLISHED = (
    "published data (τ²-bench, MIT): the tasks, scenarios and policy are τ²'s own, kept "
    "as published so that our figures compare with theirs; "
)
EXEMPT: dict[str, dict[str, str]] = {
    "policy_in_two_languages": {
        "tau2_mock": _PUBLISHED + "τ²'s policy.md is English only; a translation would be a "
        "different benchmark",
        "tau2_retail": _PUBLISHED + "τ²'s policy.md is English only; a translation would be a "
        "different benchmark",
    },
    "task_count_and_composition": {
        "tau2_mock": _PUBLISHED + "10 published tasks, no compound or refusal recipe",
        "tau2_retail": _PUBLISHED + "114 published tasks, none of kind refusal",
    },
    "offline_models_in_two_languages": {
        "tau2_retail": _PUBLISHED + "its customers are τ²'s free-text scenarios for an LLM "
        "customer; no scripted customer or reference agent is written for them",
    },
    "rules_guard_every_write": {
        "tau2_mock": _PUBLISHED + "τ²'s mock policy has no identity step: anyone may create "
        "and update tasks",
    },
    "smoke_runs": {
        "tau2_retail": _PUBLISHED + "no offline customer, so no offline run (its gold is "
        "checked by tests/evals_tau2 against τ²'s trajectories instead)",
    },
}

# -- checks: each returns one message per offence ---------------------------------------------


def _leaves(value: Any) -> Iterator[tuple[str, Any]]:
    """(key, leaf) pairs of a nested mapping/list; a list item carries its list's key."""

    def walk(key: str, v: Any) -> Iterator[tuple[str, Any]]:
        if isinstance(v, Mapping):
            for k, x in v.items():
                yield (str(k), None)
                yield from walk(str(k), x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                yield from walk(key, x)
        elif v is not None:
            yield (key, v)

    yield from walk("", value)


def _package(domain: Domain) -> Path:
    module = importlib.import_module(registry._modules[domain.name])
    return Path(str(module.__file__)).parent


def check_registered(domain: Domain) -> list[str]:
    out = []
    try:
        tasks = list(domain.tasks_by_id.values())
    except EngineError as exc:
        return [f"{domain.name}: {exc}"]
    for task in tasks:
        if task.domain != domain.name:
            out.append(f"{domain.name}: task {task.id} says domain {task.domain!r}")
    return out


def check_world(domain: Domain) -> list[str]:
    seeds = sorted({t.world_seed for t in domain.tasks()})
    out = []
    for seed in seeds:
        first, second = domain.fresh_world(seed), domain.fresh_world(seed)
        if first.state_hash() != second.state_hash():
            out.append(f"{domain.name}: world seed {seed} is not deterministic")
    task = next((t for t in domain.tasks() if t.gold), None)
    if task is not None:
        before = domain.fresh_world(task.world_seed).state_hash()
        replay(domain, task.gold, domain.fresh_world(task.world_seed))
        if domain.fresh_world(task.world_seed).state_hash() != before:
            out.append(f"{domain.name}: task {task.id}'s gold replay changed the pristine world")
    return out


def check_tools(domain: Domain) -> list[str]:
    out = []
    kinds = set()
    for tool in domain.tools:
        if tool.kind not in (ToolKind.READ, ToolKind.WRITE):
            out.append(f"{domain.name}: tool {tool.name} is neither READ nor WRITE")
        if tool.actor is Actor.AGENT:
            kinds.add(tool.kind)
        if len(tool.description.strip()) < 20:
            out.append(f"{domain.name}: tool {tool.name} has no docstring for the model")
        properties = tool.schema["function"]["parameters"]["properties"]
        for name, prop in properties.items():
            if not str(prop.get("description", "")).strip():
                out.append(f"{domain.name}: tool {tool.name} argument {name} has no Args: line")
    for kind in (ToolKind.READ, ToolKind.WRITE):
        if kind not in kinds:
            out.append(f"{domain.name}: no {kind.value} tool for the agent")
    return out


def check_policy_in_two_languages(domain: Domain) -> list[str]:
    folder = _package(domain)
    english, chinese = folder / "policy.md", folder / "policy.zh.md"
    if not english.is_file() or english.read_text(encoding="utf-8") != domain.policy:
        return [f"{domain.name}: Domain.policy is not {english.relative_to(ROOT)}"]
    if not chinese.is_file() or not CJK.search(chinese.read_text(encoding="utf-8")):
        return [f"{domain.name}: no Chinese policy at {chinese.relative_to(ROOT)}"]
    return []


def check_rules_guard_every_write(domain: Domain) -> list[str]:
    """The guard's rules are real: each task's first gold write (a hand-off to a human aside:
    an unverified caller may be transferred), made on the pristine world before the customer
    has been verified, is refused."""
    out = []
    for task in domain.tasks():
        writes = [c for c in task.gold if not domain.tools[c.name].terminal]
        for call in writes[:1]:
            world = domain.fresh_world(task.world_seed)
            if not domain.rules(world, call.name, call.arguments):
                out.append(
                    f"{domain.name}: task {task.id}: {call.name} passes the rules with nobody "
                    "verified"
                )
    return out


def check_smoke_split(domain: Domain) -> list[str]:
    smoke = [t for t in domain.tasks_by_id.values() if "smoke" in t.splits]
    if len(smoke) != SMOKE:
        return [f"{domain.name}: smoke split has {len(smoke)} tasks, not {SMOKE}"]
    return []


def check_task_count_and_composition(domain: Domain) -> list[str]:
    tasks = domain.tasks()
    out = []
    if len(tasks) < MIN_TASKS:
        out.append(f"{domain.name}: {len(tasks)} tasks, fewer than {MIN_TASKS}")
    if not any(len(t.intents) >= 2 for t in tasks):
        out.append(f"{domain.name}: no compound task (two or more intents)")
    for kind in (TaskKind.ACTION, TaskKind.REFUSAL, TaskKind.HANDOFF):
        if not any(t.kind is kind for t in tasks):
            out.append(f"{domain.name}: no {kind.value} task")
    smoke_kinds = {t.kind for t in domain.tasks_by_id.values() if "smoke" in t.splits}
    if not {TaskKind.ACTION, TaskKind.REFUSAL} <= smoke_kinds:
        out.append(f"{domain.name}: the smoke split lacks an action or a refusal task")
    return out


_pristine_hashes: dict[tuple[str, int], str] = {}


def _pristine(domain: Domain, seed: int) -> str:
    key = (domain.name, seed)
    if key not in _pristine_hashes:
        _pristine_hashes[key] = domain.fresh_world(seed).state_hash()
    return _pristine_hashes[key]


def check_gold_replay(domain: Domain) -> list[str]:
    out = []
    for task in domain.tasks():
        try:
            changed = gold_state(domain, task).hash != _pristine(domain, task.world_seed)
        except EngineError as exc:
            out.append(f"{domain.name}: task {task.id}: {exc}")
            continue
        if task.kind is TaskKind.REFUSAL and task.gold:
            out.append(f"{domain.name}: task {task.id}: a refusal task with gold writes")
        if task.kind in (TaskKind.ACTION, TaskKind.HANDOFF) and not changed:
            out.append(f"{domain.name}: task {task.id}: its gold replay changes nothing")
    return out


def check_refusal_tasks(domain: Domain) -> list[str]:
    folder = _package(domain)
    english_file, chinese_file = folder / "policy.md", folder / "policy.zh.md"
    english = english_file.read_text(encoding="utf-8").lower() if english_file.is_file() else ""
    chinese = chinese_file.read_text(encoding="utf-8") if chinese_file.is_file() else ""
    out = []
    for task in domain.tasks():
        if task.kind is not TaskKind.REFUSAL:
            continue
        where = f"{domain.name}: refusal task {task.id}"
        if not task.required_reads:
            out.append(f"{where}: no required_reads (a refusal must rest on a lookup)")
        for alternatives in task.required_reads:
            for read in alternatives:
                tool = domain.tools.get(read.name)
                if tool is None or tool.kind is not ToolKind.READ:
                    out.append(f"{where}: required read {read.name} is not a READ tool")
        if len(task.communicate) < 2:
            out.append(f"{where}: communicate lacks the refusal and the policy's reason")
            continue
        said = (task.scenario.prompt() + json.dumps(dict(task.scenario.data))).lower()
        for reason in task.communicate[1:]:
            if any(alt.lower() in said for alt in reason):
                out.append(f"{where}: its reason {reason} is in the customer's own scenario")
            worded = [alt for alt in reason if not re.fullmatch(r"[\d.,]+", alt)]
            if worded and not any(alt.lower() in english for alt in worded):
                out.append(f"{where}: reason {worded} is not worded as policy.md words it")
            if worded and not any(alt in chinese for alt in worded):
                out.append(f"{where}: reason {worded} is not worded as policy.zh.md words it")
    return out


def _prose(scenario: Scenario) -> str:
    return " ".join((scenario.reason, scenario.known_info, scenario.unknown_info)).lower()


def check_scenarios_hold_only_what_a_customer_knows(domain: Domain) -> list[str]:
    out = []
    for task in domain.tasks():
        where = f"{domain.name}: task {task.id}"
        scenario = task.scenario
        leaves = list(_leaves(dict(scenario.data)))
        text = " ".join(str(v) for _, v in leaves if v is not None).lower()
        for key, value in leaves:
            if value is None and ANSWER_KEYS.search(key):
                out.append(f"{where}: scenario key {key!r} carries the answer")
            if isinstance(value, str) and value.lower() in TASK_KINDS:
                out.append(f"{where}: scenario {key!r} = {value!r} labels the task's kind")
        # The customer's own writes (`user_gold`) are what its scenario tells it to do.
        for call in task.gold:
            if call.name.lower() in text or call.name.lower() in _prose(scenario):
                out.append(f"{where}: scenario names the gold tool {call.name}")
            for key, value in _leaves(dict(call.arguments)):
                if not (key.endswith(("id", "ids")) and isinstance(value, str) and value):
                    continue
                if value.lower() in text and value.lower() not in _prose(scenario):
                    out.append(f"{where}: gold {key} {value!r} is in the scenario's data only")
    return out


def _empty_trajectory() -> Trajectory:
    return Trajectory(
        messages=(),
        verdicts=(),
        timings=(),
        termination=TerminationReason.AGENT_END,
        tool_errors=0,
        seconds=0.0,
    )


def check_nothing_passes_an_empty_conversation(domain: Domain) -> list[str]:
    """Statically, on every task: an agent that says and does nothing scores 0. A task
    judged only in prose is exempt: without a judge it is reported "not judged", never a
    pass (Task.needs_judge)."""
    out = []
    for task in domain.tasks():
        if task.needs_judge:
            continue
        world = domain.fresh_world(task.world_seed)
        # Reward is a product: a task scored on state whose gold changes it fails an empty
        # conversation on state alone (hashing a τ² world for every task is slow).
        changed = gold_state(domain, task).hash != _pristine(domain, task.world_seed)
        if "state" in task.reward_basis and changed:
            continue
        if evaluate(domain, task, _empty_trajectory(), world).reward != 0.0:
            out.append(f"{domain.name}: task {task.id} passes with nothing said or done")
    return out


def check_offline_models_in_two_languages(domain: Domain) -> list[str]:
    out = []
    if domain.reference_agent is None:
        out.append(f"{domain.name}: no reference agent (sandbox/reference)")
    if domain.scripted_user is None:
        out.append(f"{domain.name}: no scripted customer (sandbox/scripted)")
    missing = [lang for lang in LANGUAGES if lang not in domain.scripted_languages]
    if missing:
        out.append(f"{domain.name}: its scripted customer does not speak {missing}")
    return out


def _smoke(domain: Domain, agent: str, persona: str = "baseline") -> list[Any]:
    spec = RunSpec(domains=(domain.name,), split="smoke", personas=(persona,), agent=agent)
    return [run_unit(spec, unit) for unit in plan(spec)]


def check_smoke_runs(domain: Domain) -> list[str]:
    """In-process runs of the smoke split: the reference agent passes every task with the
    baseline customer in each language (and answers a Chinese customer in Chinese); the
    do-nothing agent and the blanket refuser score 0 on every task."""
    if domain.reference_agent is None or domain.scripted_user is None:
        return [f"{domain.name}: no offline agent and customer to run the smoke split with"]
    out = []
    for language in LANGUAGES:
        for record in _smoke(domain, "sandbox/reference", f"baseline,language={language}"):
            if record.reward != 1.0:
                out.append(
                    f"{domain.name}: task {record.task_id} ({language}): the reference agent "
                    f"scores {record.reward} ({record.failure}; {record.error})"
                )
            messages = (record.trajectory or {}).get("messages", ())
            said = " ".join(m.get("content") or "" for m in messages if m["role"] == "assistant")
            if language == "zh-Hans" and not CJK.search(said):
                out.append(
                    f"{domain.name}: task {record.task_id}: the reference agent answers a "
                    "Chinese customer in no Chinese"
                )
    for agent in (fault("do_nothing"), adversary("blanket_refuser")):
        for record in _smoke(domain, agent):
            if record.reward != 0.0 or record.infrastructure or record.simulator_error:
                out.append(
                    f"{domain.name}: task {record.task_id}: {agent} scores {record.reward} "
                    f"(failure {record.failure!r}), not 0"
                )
    return out


def check_docs_page(domain: Domain) -> list[str]:
    names = (f"`{domain.name}`", f"evals/domains/{domain.name}")
    for page in (ROOT / "docs").glob("*.md"):
        if any(n in page.read_text(encoding="utf-8") for n in names):
            return []
    return [f"{domain.name}: no page in docs/ names it"]


CHECKS: dict[str, Callable[[Domain], list[str]]] = {
    "registered": check_registered,
    "world": check_world,
    "tools": check_tools,
    "policy_in_two_languages": check_policy_in_two_languages,
    "rules_guard_every_write": check_rules_guard_every_write,
    "smoke_split": check_smoke_split,
    "task_count_and_composition": check_task_count_and_composition,
    "gold_replay": check_gold_replay,
    "refusal_tasks": check_refusal_tasks,
    "scenarios_hold_only_what_a_customer_knows": check_scenarios_hold_only_what_a_customer_knows,
    "nothing_passes_an_empty_conversation": check_nothing_passes_an_empty_conversation,
    "offline_models_in_two_languages": check_offline_models_in_two_languages,
    "smoke_runs": check_smoke_runs,
    "docs_page": check_docs_page,
}


def _cases() -> list[Any]:
    cases = []
    for rule in CHECKS:
        for name in domain_names():
            reason = EXEMPT.get(rule, {}).get(name)
            marks = (
                [pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)]
                if reason
                else []
            )
            cases.append(pytest.param(rule, name, marks=marks, id=f"{rule}-{name}"))
    return cases


@pytest.mark.parametrize(("rule", "name"), _cases())
def test_every_domain_follows_the_contract(rule, name):
    offences = CHECKS[rule](get_domain(name))
    assert offences == [], "\n".join(offences)


def test_every_exemption_names_a_rule_and_a_registered_domain():
    assert set(EXEMPT) <= set(CHECKS)
    for domains in EXEMPT.values():
        assert set(domains) <= set(domain_names())
        assert all(name.startswith("tau2_") for name in domains), "only published data"


# -- each check fails on a domain that breaks its rule ----------------------------------------


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Domain]:
    """Registers a broken copy of `retail` under a new name for this test only."""

    def make(
        name: str, tasks: Callable[[Sequence[Task]], Sequence[Task]], **changes: Any
    ) -> Domain:
        base = get_domain("retail")
        original = tuple(base.tasks())
        domain = replace(
            base, name=name, load_tasks=lambda: tuple(tasks(original)), _cache={}, **changes
        )
        monkeypatch.setitem(registry._modules, name, registry._modules["retail"])
        monkeypatch.setitem(registry._loaded, name, domain)
        assert get_domain(name) is domain and name in domain_names()
        return domain

    return make


def _retagged(tasks: Sequence[Task], name: str) -> list[Task]:
    return [replace(t, domain=name) for t in tasks]


def _edit(name: str, pick: Callable[[Task], bool], change: Callable[[Task], Task]):
    def edit(tasks: Sequence[Task]) -> list[Task]:
        out, done = [], False
        for t in _retagged(tasks, name):
            if not done and pick(t):
                t, done = change(t), True
            out.append(t)
        assert done
        return out

    return edit


def _is(kind: TaskKind, smoke: bool = False) -> Callable[[Task], bool]:
    return lambda t: t.kind is kind and (not smoke or "smoke" in t.splits)


def _the_one(offences: list[str], *words: str) -> None:
    assert len(offences) >= 1, "the broken domain passed the check"
    assert any(all(w in o for w in words) for o in offences), offences


def test_the_untouched_copy_passes_so_each_break_below_is_what_is_caught(fake):
    domain = fake("fake_clean", lambda ts: _retagged(ts, "fake_clean"))
    for rule in ("registered", "gold_replay", "refusal_tasks", "rules_guard_every_write"):
        assert CHECKS[rule](domain) == [], rule
    assert check_scenarios_hold_only_what_a_customer_knows(domain) == []


def test_a_task_of_another_domain_is_caught(fake):
    domain = fake("fake_foreign", lambda ts: list(ts))  # tasks still say "retail"
    _the_one(check_registered(domain), "fake_foreign", "retail-000")


def test_a_world_that_differs_between_two_builds_is_caught(fake):
    base = get_domain("retail")
    count = iter(range(10**6))

    def drifting(seed: int) -> Any:
        world = base.build_world(seed).copy()
        world.put("orders", f"#W{next(count)}", next(iter(world.tables["orders"].values())))
        return world

    domain = fake("fake_drift", lambda ts: _retagged(ts, "fake_drift"), build_world=drifting)
    _the_one(check_world(domain), "fake_drift", "not deterministic")


def test_a_tool_without_a_docstring_is_caught(fake):
    base = get_domain("retail")
    tool = base.tools["get_order"]
    bare = replace(tool, description="")
    tools = type(base.tools)([bare if t.name == "get_order" else t for t in base.tools])
    domain = fake("fake_bare", lambda ts: _retagged(ts, "fake_bare"), tools=tools)
    _the_one(check_tools(domain), "fake_bare", "get_order", "docstring")


def test_a_domain_with_no_chinese_policy_is_caught(fake):
    domain = fake("fake_policy", lambda ts: _retagged(ts, "fake_policy"), policy="Be nice.")
    _the_one(check_policy_in_two_languages(domain), "fake_policy", "policy.md")


def test_rules_that_let_every_write_through_are_caught(fake):
    domain = fake(
        "fake_lax", lambda ts: _retagged(ts, "fake_lax"), rules=lambda world, tool, args: []
    )
    _the_one(check_rules_guard_every_write(domain), "fake_lax", "retail-000", "passes")


def test_a_small_task_set_without_a_refusal_is_caught(fake):
    domain = fake("fake_small", lambda ts: [t for t in _retagged(ts, "fake_small")[:20]])
    offences = check_task_count_and_composition(domain)
    assert any("fewer than 60" in o for o in offences), offences
    assert any("no refusal task" in o for o in offences), offences


def test_a_smoke_split_of_the_wrong_size_is_caught(fake):
    edit = _edit("fake_smoke", _is(TaskKind.ACTION), lambda t: replace(t, splits=("all", "smoke")))
    domain = fake("fake_smoke", lambda ts: edit(ts[10:]))
    _the_one(check_smoke_split(domain), "fake_smoke", "not 5")


def test_an_action_task_whose_gold_changes_nothing_is_caught(fake):
    edit = _edit("fake_nogold", _is(TaskKind.ACTION), lambda t: replace(t, gold=()))
    _the_one(check_gold_replay(fake("fake_nogold", edit)), "fake_nogold", "changes nothing")


def test_a_gold_write_the_tools_refuse_is_caught(fake):
    bad = GoldCall("cancel_pending_order", {"order_id": "#W0000000", "reason": "no longer needed"})
    edit = _edit("fake_badgold", _is(TaskKind.ACTION), lambda t: replace(t, gold=(bad,)))
    _the_one(check_gold_replay(fake("fake_badgold", edit)), "fake_badgold", "#W0000000")


def test_a_refusal_without_a_lookup_or_with_an_id_for_a_reason_is_caught(fake):
    def blind(t: Task) -> Task:
        order_id = t.scenario.data["requests"][0]["order_id"]
        return replace(t, required_reads=(), communicate=(t.communicate[0], (order_id,)))

    domain = fake("fake_refusal", _edit("fake_refusal", _is(TaskKind.REFUSAL), blind))
    offences = check_refusal_tasks(domain)
    assert any("no required_reads" in o and "fake_refusal" in o for o in offences), offences
    assert any("customer's own scenario" in o for o in offences), offences
    assert any("policy.zh.md" in o for o in offences), offences


def test_a_scenario_carrying_an_answer_key_is_caught(fake):
    def keyed(t: Task) -> Task:
        data = {**t.scenario.data, "expected": "cancelled"}
        return replace(t, scenario=replace(t.scenario, data=data))

    domain = fake("fake_key", _edit("fake_key", _is(TaskKind.ACTION), keyed))
    _the_one(check_scenarios_hold_only_what_a_customer_knows(domain), "fake_key", "'expected'")


def test_a_scenario_labelled_with_its_task_kind_is_caught(fake):
    def labelled(t: Task) -> Task:
        data = {**t.scenario.data, "type": "refusal"}
        return replace(t, scenario=replace(t.scenario, data=data))

    domain = fake("fake_label", _edit("fake_label", _is(TaskKind.REFUSAL), labelled))
    _the_one(check_scenarios_hold_only_what_a_customer_knows(domain), "fake_label", "kind")


def test_a_gold_id_the_scenario_does_not_state_is_caught(fake):
    def leaky(t: Task) -> Task:
        item_ids = [v for k, v in _leaves([dict(g.arguments) for g in t.gold]) if k == "item_ids"]
        data = {**t.scenario.data, "hint": item_ids}
        return replace(t, scenario=replace(t.scenario, data=data))

    pick = lambda t: any("item_ids" in g.arguments for g in t.gold)  # noqa: E731
    domain = fake("fake_leak", _edit("fake_leak", pick, leaky))
    _the_one(check_scenarios_hold_only_what_a_customer_knows(domain), "fake_leak", "item_ids")


def test_a_task_an_empty_conversation_passes_is_caught(fake):
    edit = _edit(
        "fake_free",
        _is(TaskKind.REFUSAL),
        lambda t: replace(t, communicate=(), required_reads=()),
    )
    _the_one(check_nothing_passes_an_empty_conversation(fake("fake_free", edit)), "fake_free")


def test_a_domain_without_a_chinese_customer_is_caught(fake):
    domain = fake("fake_en", lambda ts: _retagged(ts, "fake_en"), scripted_languages=("en",))
    _the_one(check_offline_models_in_two_languages(domain), "fake_en", "zh-Hans")


def test_a_smoke_task_the_do_nothing_agent_passes_is_caught(fake):
    # A smoke refusal with nothing to say: do-nothing passes it, so the run check must fail.
    edit = _edit(
        "fake_run",
        _is(TaskKind.REFUSAL, smoke=True),
        lambda t: replace(t, communicate=(), required_reads=()),
    )
    offences = check_smoke_runs(fake("fake_run", edit))
    assert any("sandbox/fault:do_nothing" in o and "fake_run" in o for o in offences), offences


def test_a_reference_agent_that_does_nothing_is_caught(fake):
    from evals.engine import registry as agents

    domain = fake(
        "fake_lazy",
        lambda ts: _retagged(ts, "fake_lazy"),
        reference_agent=agents.agent_factory(fault("do_nothing")),
    )
    offences = check_smoke_runs(domain)
    assert any("the reference agent scores 0" in o for o in offences), offences


def test_a_domain_no_page_names_is_caught(fake):
    _the_one(check_docs_page(fake("fake_undocumented", list)), "no page in docs/")


class _EnglishOnly:
    """The reference agent with every Chinese character taken out of what it says."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def respond(self, messages: Sequence[Any], tools: Sequence[Any]) -> Any:
        message = self.inner.respond(messages, tools)
        return replace(message, content=CJK.sub("", message.content or ""))


def test_a_reference_agent_that_answers_chinese_in_no_chinese_is_caught(fake):
    base = get_domain("retail")
    assert base.reference_agent is not None
    inner = base.reference_agent

    def english_only(**kwargs: Any) -> Any:
        return _EnglishOnly(inner(**kwargs))

    domain = fake("fake_monolingual", lambda ts: _retagged(ts, "fake_monolingual"))
    domain = replace(domain, reference_agent=english_only)
    registry._loaded["fake_monolingual"] = domain
    offences = check_smoke_runs(domain)
    assert any("in no Chinese" in o and "fake_monolingual" in o for o in offences), offences
