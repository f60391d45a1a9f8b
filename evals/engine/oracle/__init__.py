"""The deterministic oracle: reward and failure class of one trial.

Reward is the product of the task's components (`Task.reward_basis`):
- state: the final world equals the gold replay (the gold writes replayed on a fresh world
  built from the task's seed), compared by canonical hash; a readable diff when not;
- handoff: a handoff with the required category exists (when the task requires one);
- communicate: every required piece of information appears in the agent's messages;
- policy: no policy verdict with a violation (blocked attempts count: without the guard they
  would have gone through);
- assertions: every check of `Task.assertions` holds on the final world — in a dual-control
  domain the customer's side (`user:` tables, changed only by the customer's own tools) is
  judged this way, since the state component compares the agent's side only.
A trial the user abandoned scores 0. The oracle never reads what the agent claims it did.

`coordination_failure`: the agent's own side is right (state and handoff) but a user-side
assertion fails — the customer was never asked or given the chance to do its part, did it in
the wrong order, or the agent ended before the customer's side was done. Natural-language
assertions are judged outside the oracle (`evals.engine.judge`, applied by the runner).
"""

from evals.engine.oracle.evidence import LIMITS, communicated, human_expected, lookups_missing
from evals.engine.oracle.gold import GoldState, gold_state, replay
from evals.engine.oracle.outcome import Evaluation, FailureClass
from evals.engine.oracle.verdict import evaluate, with_nl_verdicts

__all__ = [
    "LIMITS",
    "Evaluation",
    "FailureClass",
    "GoldState",
    "communicated",
    "evaluate",
    "gold_state",
    "human_expected",
    "lookups_missing",
    "replay",
    "with_nl_verdicts",
]
