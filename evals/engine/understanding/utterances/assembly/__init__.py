"""From clause facts to the acts of the whole message.

Order of the passes, and why:
1. choices first — "which size — S, M or L?" is one act spread over two clauses, and a
   which-question often names its options in the clause before or after it;
2. then each remaining clause, in order: statements (hand-off, not found, refusal, done) before
   questions, because "I can't find that order" must not read as a refusal nor "Is there
   anything else?" as a yes/no check; a go-ahead takes its action from the summary before it;
3. then message-level completions: identity fields spread over bullets, the action of "Done:"
   in the next clause, a refusal's reason in the sentence after it, and statuses (INFORM) only
   when no stronger act already carries the facts."""

from __future__ import annotations

from evals.engine.understanding.utterances.assembly.base import Draft, step_action
from evals.engine.understanding.utterances.assembly.choices import Choices
from evals.engine.understanding.utterances.assembly.clauses import Clauses
from evals.engine.understanding.utterances.assembly.completions import Completions
from evals.engine.understanding.utterances.model import ActKind

__all__ = ["Assembly", "Draft", "step_action"]


class Assembly(Choices, Clauses, Completions):
    """The passes, in their order, over one message's clause facts."""

    def run(self) -> list[Draft]:
        self.choices()
        self.which_lists()
        self.clauses()
        self.identity_fields()
        self.reasons()
        self.explanations()
        self.statuses()
        drafts = self.merged()
        if not drafts:
            kind = ActKind.GREETING if any(f.salutation for f in self.f) else ActKind.UNCLEAR
            drafts = [Draft(kind, 0, list(range(self.n)))]
        return sorted(drafts, key=lambda d: d.at)
