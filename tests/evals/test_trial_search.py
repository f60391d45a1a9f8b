"""The trial list's transcript search reads one indexed document per trial (evals.search):
it finds what the old scan of every trajectory found for words, tool names, ids, numbers
and Chinese, the document follows its row (stored, replaced, deleted), and trials stored in
bulk or before the documents existed are searchable too. Run on SQLite and on PostgreSQL
(DATABASE_URL)."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import import_module

import pytest
from django.db import connection
from django.db.models import TextField
from django.db.models.functions import Cast

from evals import selectors, services
from evals.engine.runner import TrialRecord
from evals.models import EvalRun, TrialResult
from evals.search import trial_document
from tests.evals.conftest import golive
from tests.evals.test_import import engine_run

pytestmark = pytest.mark.django_db

SEARCH_TABLE = {"postgresql": "evals_trialsearch", "sqlite": "evals_trial_search"}


@pytest.fixture
def run(rita, make_suite):
    suite = make_suite(agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    created = services.eval_run_create(actor=rita, suite=suite)
    return services.eval_run_execute(actor=rita, run_id=created.pk)


def found(run: EvalRun, q: str) -> list[int]:
    trials = selectors.run_trial_search(run_id=run.pk, filters=selectors.TrialFilters(q=q))
    return sorted(trials.values_list("pk", flat=True))


def scanned(run: EvalRun, q: str) -> list[int]:
    """What the trial list found before the documents: the trajectory cast to text, LIKE."""
    trials = TrialResult.objects.filter(run=run).annotate(
        transcript=Cast("trajectory", TextField())
    )
    return sorted(trials.filter(transcript__icontains=q).values_list("pk", flat=True))


def in_transcript(run: EvalRun, text: str) -> list[int]:
    """The trials whose conversation (the system message aside) holds `text`, in any case."""
    return sorted(
        t.pk
        for t in TrialResult.objects.filter(run=run)
        if any(
            text.lower() in json.dumps(m, ensure_ascii=False).lower()
            for m in (t.trajectory or {}).get("messages", [])
            if m.get("role") != "system"
        )
    )


def documents() -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {SEARCH_TABLE[connection.vendor]}")
        return int(cursor.fetchone()[0])


def chinese_record(trial: int, text: str, **changes) -> TrialRecord:
    trajectory = {
        "messages": [
            {"role": "system", "content": "政策。先核实身份。"},
            {"role": "user", "content": text},
            {"role": "assistant", "content": "好的。我来查一下您的订单 #W1234567。"},
        ],
        "verdicts": [],
        "termination": "user_stop",
    }
    record = TrialRecord("retail", "zh_task", "baseline", trial, 1, 0.0, "omission", "user_stop")
    return replace(record, trajectory=trajectory, **changes)


# Each kind of search a release manager types: tool names, a customer id only a tool's
# result gives, an order number with and without its hash, an item id and a zip code
# (numbers), a violation code, the guard's and the customers' words, a product's name.
SEARCHES = [
    "cancel_pending_order",
    "get_customer",
    "LUCAS_JOHNSON_8273",
    "#W2945188",
    "W2945188",
    "4380704174",
    "94627",
    "no_confirmation",
    "ask again",
    "Willow",
    "Salem",
    "coffee maker",
]


@pytest.mark.parametrize("q", SEARCHES)
def test_it_finds_what_the_scan_of_every_trajectory_found(run, q) -> None:
    everything = TrialResult.objects.filter(run=run).count()
    assert found(run, q) == scanned(run, q)
    assert 0 < len(found(run, q)) <= everything


def test_the_policy_is_not_searched(run) -> None:
    # The agent's policy names find_customer_by_email: the scan found every trial by it.
    everything = sorted(TrialResult.objects.filter(run=run).values_list("pk", flat=True))
    assert scanned(run, "find_customer_by_email") == everything
    assert found(run, "find_customer_by_email") == in_transcript(run, "find_customer_by_email")
    assert [] != found(run, "find_customer_by_email") != everything


def test_a_word_is_found_whatever_its_case_and_ending(run) -> None:
    # "cancelled" (a tool's result), "cancel" (the customer), "Thanks" and "Thank you" are
    # one word each, stemmed (English): the scan found only the letters typed.
    assert found(run, "CANCELLED") == found(run, "cancel") == in_transcript(run, "cancel") != []
    assert found(run, "thanks") == found(run, "thank") == in_transcript(run, "Thank") != []
    assert scanned(run, "Thanks") != found(run, "Thanks")


def test_chinese_is_found_by_any_two_or_more_consecutive_characters(run) -> None:
    services.trial_store(run_id=run.pk, record=chinese_record(0, "我的退款没有到账。已经三天了。"))
    services.trial_store(run_id=run.pk, record=chinese_record(1, "我想取消订单。"))
    late, cancel = (TrialResult.objects.get(run=run, task_id="zh_task", trial=n).pk for n in (0, 1))
    assert found(run, "退款") == found(run, "没有到账") == found(run, "退款没有到账") == [late]
    assert found(run, "取消订单") == [cancel] and found(run, "退款 三天") == [late]
    assert found(run, "订单") == [late, cancel] == in_transcript(run, "订单")
    assert found(run, "没有到账") == in_transcript(run, "没有到账")
    # Not a phrase of the text: "款没" and "三天" are in it, "款三" is not.
    assert found(run, "款三") == []
    # The policy (the system message) is not searched: every trial of a domain has it.
    assert found(run, "核实身份") == []
    # A lone character is not a search (a pair is the unit of the index).
    assert found(run, "退") == []
    if connection.vendor == "postgresql":
        # PostgreSQL's JSON text holds Chinese as written: the old scan agrees.
        assert found(run, "退款没有到账") == scanned(run, "退款没有到账")


def test_the_document_is_replaced_with_an_error_row_and_kept_with_a_good_one(run) -> None:
    error = chinese_record(5, "超时了 provider timeout", termination="infrastructure_error")
    assert services.trial_store(run_id=run.pk, record=error)
    (first,) = found(run, "timeout")
    # The resume re-ran the error: the row and its document are replaced, same id.
    assert services.trial_store(run_id=run.pk, record=chinese_record(5, "重新运行 rerun ok"))
    assert found(run, "timeout") == [] and found(run, "超时") == []
    assert found(run, "rerun") == [first]
    # A re-delivered unit whose good row is stored changes neither the row nor the document.
    assert not services.trial_store(run_id=run.pk, record=chinese_record(5, "duplicate"))
    assert found(run, "duplicate") == [] and found(run, "rerun") == [first]


def test_deleting_a_run_deletes_its_documents(run) -> None:
    assert documents() == TrialResult.objects.filter(run=run).count() > 0
    EvalRun.objects.filter(pk=run.pk).delete()
    assert documents() == 0


def test_trials_stored_before_the_documents_are_built_by_the_migration(run, monkeypatch) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {SEARCH_TABLE[connection.vendor]}")
    assert found(run, "cancel_pending_order") == []
    migration = import_module("evals.migrations.0010_trial_search_documents")
    monkeypatch.setattr(migration, "BATCH", 7)  # several batches
    assert migration.backfill(TrialResult, connection) == TrialResult.objects.count()
    assert found(run, "cancel_pending_order") == scanned(run, "cancel_pending_order") != []


def test_an_imported_run_is_searchable(tmp_path, capsys, rita) -> None:
    path, _ = engine_run(tmp_path, capsys)
    code, _, err = golive("import", str(path), "--as", rita.username)
    assert code == 0, err
    run = EvalRun.objects.get()
    assert found(run, "cancel_pending_order") == scanned(run, "cancel_pending_order") != []


def test_the_document_leaves_the_policy_out_and_adds_the_chinese_pairs() -> None:
    document = trial_document(chinese_record(0, "退款没有到账").trajectory)
    assert "政策" not in document and "退款没有到账" in document
    assert document.endswith(
        "\n退款 款没 没有 有到 到账 好的 我来 来查 查一 一下 下您 您的 的订 订单"
    )
    assert trial_document(None) == ""
