"""Does the scripted customer measure the agent, or the reference agent's wording? Each domain
that lists rewordings of its reference agent (the same logic saying every sentence in other
words, agent param `phrasing`) is run once per phrasing on the default personas; a customer
that understands meaning, not phrases, gives every phrasing the pass^1 of the reference one.
`--languages en,zh-Hans` runs each phrasing against customers writing each language (the
personas with `language=...`): an explicit phrasing is spoken whatever the customer writes, so
an English customer reads the Chinese agent and a Chinese customer the English ones. The row
`auto` is the reference agent without the param: it answers in the customer's language.

    .venv/bin/python bench/rewordings.py [--domains retail] [--trials 4]
        [--personas baseline,impatient,skeptical,confused] [--seed 7]
        [--languages en,zh-Hans] [--markdown]

Prints, per domain, customer language and phrasing, pass^1 and pass^k, the difference of
pass^1 from the reference phrasing against English customers, and the failure classes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evals.domains.membership.scripted.phrasings import PHRASINGS as MEMBERSHIP
from evals.domains.retail.scripted.phrasings import PHRASINGS as RETAIL
from evals.domains.retail.scripted.phrasings import REFERENCE as RETAIL_REFERENCE
from evals.domains.tau2_mock.scripted.agent import WORDS as MOCK
from evals.domains.telecom.scripted.phrasings import PHRASINGS as TELECOM
from evals.engine.metrics import Report
from evals.engine.runner import MemorySink, RunSpec, run

# domain -> (reference phrasing, every phrasing its reference agent can speak). A domain that
# gains rewordings adds its line here.
PHRASINGS: Mapping[str, tuple[str, Sequence[str]]] = {
    "retail": (RETAIL_REFERENCE, tuple(RETAIL)),
    "membership": ("en", tuple(MEMBERSHIP)),
    "tau2_mock": ("en", tuple(MOCK)),
    "telecom": ("en", tuple(TELECOM)),
}


AUTO = "auto"  # no phrasing param: the agent speaks the customer's language


def measure(domain: str, phrasing: str, language: str, args: argparse.Namespace) -> Report:
    personas = args.personas.split(",")
    spec = RunSpec(
        domains=(domain,),
        personas=tuple(
            personas if language == "en" else [f"{p},language={language}" for p in personas]
        ),
        trials=args.trials,
        seed=args.seed,
        agent_params={} if phrasing == AUTO else {"phrasing": phrasing},
        include_trajectory=False,
    )
    return run(spec, MemorySink(), ks=(1, args.trials))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", default=",".join(PHRASINGS))
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--personas", default="baseline,impatient,skeptical,confused")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--languages", default="en", help="the customers' languages: en,zh-Hans")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    k = args.trials
    rows = []
    for domain in args.domains.split(","):
        if domain not in PHRASINGS:
            parser.error(f"{domain} lists no rewordings; known: {', '.join(PHRASINGS)}")
        reference, phrasings = PHRASINGS[domain]
        base: float | None = None
        for language in args.languages.split(","):
            for phrasing in (*phrasings, AUTO):
                report = measure(domain, phrasing, language, args)
                p1, pk = report.pass_hat[1].value, report.pass_hat[k].value
                if base is None and phrasing == reference:
                    base = p1
                rows.append((domain, language, phrasing, p1, pk, report.failures, p1 - (base or 0)))
    head = ("domain", "customer", "phrasing", "pass^1", f"pass^{k}", "Δ pass^1", "failures")
    lines = [
        (
            d,
            lang,
            p,
            f"{p1:.3f}",
            f"{pk:.3f}",
            f"{delta:+.3f}",
            ", ".join(f"{c} {n}" for c, n in f.items()),
        )
        for d, lang, p, p1, pk, f, delta in rows
    ]
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        for line in [head, *lines]:
            print(
                f"{line[0]:<10} {line[1]:<8} {line[2]:<9} {line[3]:>7} {line[4]:>7} {line[5]:>9}"
                f"  {line[6]}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
