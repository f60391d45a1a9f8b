"""The trial list's transcript search: one search document per trial.

A trial's document is the text of its conversation — what the customer and the agent said,
every tool call (name and arguments, as the model wrote them) and every tool result, the
guard's verdicts (tool, violation codes and messages), how it ended and its error — followed
by the overlapping pairs of its CJK characters (tickets.search.cjk_bigrams, the inbox's
definition), so "退款" is found inside "退款没有到账". The system message (the agent's policy,
the same for every trial of a domain and most of a transcript's words) is left out: in the
document, every word of the policy would match every trial.

It is built here, in Python, when a trial is stored (evals.services.store.trial_store, in
the same statement or transaction as the row) and by migration 0008 for the trials stored
before. It is stored per backend, as the inbox's documents are (tickets migration 0008):
- PostgreSQL: `evals_trialsearch(trial_id, document tsvector)` with a GIN index, in the
  configuration `evals_search` ('english' stemming, without its stop words);
- SQLite: an FTS5 table `evals_trial_search` (rowid = trial id), Porter-stemmed like
  PostgreSQL's 'english'.
Triggers remove a deleted trial's document (a run's deletion, the test runner's flush).
The queries are the inbox's: tickets.search.websearch_query / fts5_query.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from tickets.search import CJK_CLASS, cjk_bigrams, fts5_query, websearch_query

_CJK_RUN = re.compile(f"[{CJK_CLASS}]{{2,}}")

# The trial ids whose document holds every word of a search; the words are one parameter.
# OFFSET 0 keeps PostgreSQL from folding the match into the page query (as the inbox's).
MATCHING_IDS = {
    "postgresql": "SELECT trial_id FROM evals_trialsearch "
    "WHERE document @@ websearch_to_tsquery('evals_search', %s) OFFSET 0",
    "sqlite": "SELECT rowid FROM evals_trial_search WHERE evals_trial_search MATCH %s",
}


def search_terms(vendor: str, search: str) -> str:
    """What MATCHING_IDS[vendor] is given for `search`; empty when nothing is searchable."""
    return websearch_query(search) if vendor == "postgresql" else fts5_query(search)


def _parts(trajectory: Mapping[str, Any]) -> Iterable[str]:
    for message in trajectory.get("messages") or ():
        if message.get("role") == "system":
            continue
        yield message.get("name") or ""
        yield message.get("content") or ""
        for call in message.get("tool_calls") or ():
            yield call.get("name") or ""
            yield call.get("arguments") or ""
    for verdict in trajectory.get("verdicts") or ():
        yield verdict.get("tool") or ""
        for violation in verdict.get("violations") or ():
            yield " ".join(str(v) for v in violation)
    yield trajectory.get("termination") or ""
    yield trajectory.get("error") or ""


def trial_document(trajectory: Mapping[str, Any] | None) -> str:
    """The searchable text of a trial's trajectory, then its CJK pairs."""
    if not trajectory:
        return ""
    text = "\n".join(part for part in _parts(trajectory) if part)
    # The pairs of each run of CJK characters: the same as cjk_bigrams(text), without
    # testing every character of a mostly English transcript twice.
    pairs = " ".join(cjk_bigrams(run) for run in _CJK_RUN.findall(text))
    return f"{text}\n{pairs}" if pairs else text


def documents_write(cursor: Any, vendor: str, rows: Iterable[tuple[int, str]]) -> None:
    """Store (trial id, document text) pairs, replacing a trial's earlier document: the
    backfill's and the bulk writers' path (trial_store writes its one document itself)."""
    rows = list(rows)
    if not rows:
        return
    if vendor == "postgresql":
        cursor.execute(
            "INSERT INTO evals_trialsearch (trial_id, document) "
            "SELECT id, to_tsvector('evals_search', doc) "
            "FROM unnest(%s::bigint[], %s::text[]) AS t(id, doc) "
            "ON CONFLICT (trial_id) DO UPDATE SET document = EXCLUDED.document",
            [[r[0] for r in rows], [r[1] for r in rows]],
        )
    else:
        cursor.executemany(
            "DELETE FROM evals_trial_search WHERE rowid = %s", [(r[0],) for r in rows]
        )
        cursor.executemany("INSERT INTO evals_trial_search (rowid, document) VALUES (%s, %s)", rows)
