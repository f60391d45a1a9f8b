"""The instrument's own test: inject one fault at a time into an agent that otherwise solves
every task, and measure how many of the trials the fault must spoil the oracle fails.

`measure` runs it per domain; `replay` holds the gold-replaying agent and the customer that
says yes, for domains without offline models of their own.
"""

from evals.engine.selftest.measure import (
    REFERENCE_FAILS,
    SEED,
    replays_gold,
    selftest_domain,
    trial,
)

__all__ = ["REFERENCE_FAILS", "SEED", "replays_gold", "selftest_domain", "trial"]
