"""The trial list's transcript search reads one indexed document per trial (evals.search).

Before, `?q=` cast every trial's trajectory to text and scanned it with LIKE: 12-16 s on
PostgreSQL for a run of 10,000 trials, and on SQLite Chinese was never found (SQLite's JSON
text holds it as \\u escapes). The documents are built in Python (evals.search.trial_document)
when a trial is stored; this migration creates their tables and builds them for the trials
stored before. Triggers remove a deleted trial's document:
- PostgreSQL: once per DELETE statement (a run's 10,000 trials go in one), and on TRUNCATE
  (the test runner's flush) — no foreign key, which a TRUNCATE of the trials would refuse;
- SQLite: per deleted row.
"""

from __future__ import annotations

from django.db import migrations

from evals.search import documents_write, trial_document

POSTGRES = [
    # English stemming without English stop words: "no_confirmation" (a violation code),
    # "ask again", "not found" are what a release manager searches a transcript for, and
    # 'english' drops "no", "again" and "not" (SQLite's porter tokenizer has no stop words).
    "CREATE TEXT SEARCH DICTIONARY evals_english_stem (TEMPLATE = snowball, LANGUAGE = english)",
    "CREATE TEXT SEARCH CONFIGURATION evals_search (COPY = pg_catalog.english)",
    "ALTER TEXT SEARCH CONFIGURATION evals_search ALTER MAPPING FOR asciiword, asciihword,"
    " hword_asciipart, word, hword, hword_part WITH evals_english_stem",
    "CREATE TABLE evals_trialsearch (trial_id bigint PRIMARY KEY, document tsvector NOT NULL)",
    # Compressed in the row (a trial's document is 1-6 kB compressed), not out of line: out
    # of line the table looked 800 pages long to the planner, which then scanned it rather
    # than the GIN index and de-TOASTed 52,000 pages (44 ms for a rare id at 20,000 trials;
    # 2 ms from the index once the table's size is visible).
    "ALTER TABLE evals_trialsearch ALTER COLUMN document SET STORAGE MAIN",
    """
    CREATE OR REPLACE FUNCTION evals_trialsearch_trials_deleted() RETURNS trigger AS $$
    BEGIN
        DELETE FROM evals_trialsearch s USING old_rows o WHERE s.trial_id = o.id;
        RETURN NULL;
    END
    $$ LANGUAGE plpgsql
    """,
    """
    CREATE OR REPLACE FUNCTION evals_trialsearch_trials_truncated() RETURNS trigger AS $$
    BEGIN
        TRUNCATE evals_trialsearch;
        RETURN NULL;
    END
    $$ LANGUAGE plpgsql
    """,
    "CREATE TRIGGER evals_trialsearch_trials_deleted AFTER DELETE ON evals_trialresult"
    " REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT"
    " EXECUTE FUNCTION evals_trialsearch_trials_deleted()",
    "CREATE TRIGGER evals_trialsearch_trials_truncated AFTER TRUNCATE ON evals_trialresult"
    " FOR EACH STATEMENT EXECUTE FUNCTION evals_trialsearch_trials_truncated()",
]
# After the backfill: built in one pass instead of through GIN's pending list, and analysed.
POSTGRES_INDEX = [
    "CREATE INDEX evals_trialsearch_document ON evals_trialsearch USING gin (document)",
    "ANALYZE evals_trialsearch",
]
POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS evals_trialsearch_trials_deleted ON evals_trialresult",
    "DROP TRIGGER IF EXISTS evals_trialsearch_trials_truncated ON evals_trialresult",
    "DROP FUNCTION IF EXISTS evals_trialsearch_trials_deleted()",
    "DROP FUNCTION IF EXISTS evals_trialsearch_trials_truncated()",
    "DROP TABLE IF EXISTS evals_trialsearch",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS evals_search",
    "DROP TEXT SEARCH DICTIONARY IF EXISTS evals_english_stem",
]
SQLITE = [
    "CREATE VIRTUAL TABLE evals_trial_search USING fts5(document, tokenize='porter unicode61')",
    "CREATE TRIGGER evals_trial_search_trial_deleted AFTER DELETE ON evals_trialresult BEGIN "
    "DELETE FROM evals_trial_search WHERE rowid = old.id; END",
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS evals_trial_search_trial_deleted",
    "DROP TABLE IF EXISTS evals_trial_search",
]
BATCH = 500


def _statements(vendor: str, postgres: list[str], sqlite: list[str]) -> list[str]:
    if vendor == "postgresql":
        return postgres
    if vendor == "sqlite":
        return sqlite
    raise NotImplementedError(f"no trial search documents for {vendor}")


def backfill(trial_model, connection) -> int:
    """Build the documents of every stored trial; how many."""
    trials = trial_model.objects.order_by("pk")
    last, done = 0, 0
    with connection.cursor() as cursor:
        while True:
            # Keyset batches: a run's trajectories are megabytes; never all in memory.
            batch = list(trials.filter(pk__gt=last).values_list("pk", "trajectory")[:BATCH])
            if not batch:
                return done
            documents_write(
                cursor, connection.vendor, [(pk, trial_document(t)) for pk, t in batch]
            )
            last, done = batch[-1][0], done + len(batch)


def create(apps, schema_editor):
    for sql in _statements(schema_editor.connection.vendor, POSTGRES, SQLITE):
        schema_editor.execute(sql)
    backfill(apps.get_model("evals", "TrialResult"), schema_editor.connection)
    for sql in _statements(schema_editor.connection.vendor, POSTGRES_INDEX, []):
        schema_editor.execute(sql)


def drop(apps, schema_editor):
    for sql in _statements(schema_editor.connection.vendor, POSTGRES_DROP, SQLITE_DROP):
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("evals", "0009_run_error_keys_data")]
    operations = [migrations.RunPython(create, drop)]
