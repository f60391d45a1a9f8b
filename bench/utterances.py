"""How fast the reader of agent messages is (evals.engine.understanding.utterances), printed
as JSON.

Reads every utterance of the test corpus (tests/evals_engine/data/utterances.jsonl, English
and Chinese, one to eight clauses each), `--rounds` times; each round reads every text once.
`first_read` bypasses the reader's cache of recent readings (the cost of a message never seen
before), `cached_read` goes through it (an agent repeating itself). Reported per utterance:
the mean of the fastest round (the machine's noise only ever adds time), and p50 / p95 / max
over the individual reads of that round. One warm-up round runs first (the first use of a
combination of active patterns compiles it).

    .venv/bin/python bench/utterances.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evals.engine.understanding.utterances import UtteranceReader  # noqa: E402

CORPUS = ROOT / "tests" / "evals_engine" / "data" / "utterances.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    texts = [json.loads(line)["text"] for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    reader = UtteranceReader()
    for text in texts:
        reader.read(text)
    cold = _best(lambda text: reader._read(text), texts, args.rounds)
    cached = _best(reader.read, texts, args.rounds)
    print(
        json.dumps(
            {
                "utterances": len(texts),
                "chars_mean": round(statistics.fmean(len(t) for t in texts), 1),
                "rounds": args.rounds,
                "first_read": cold,
                "cached_read": cached,
            }
        )
    )


def _best(read: Callable[[str], object], texts: list[str], rounds: int) -> dict[str, float]:
    best: list[float] | None = None
    for _ in range(rounds):
        times = []
        for text in texts:
            start = time.perf_counter()
            read(text)
            times.append(time.perf_counter() - start)
        if best is None or sum(times) < sum(best):
            best = times
    assert best is not None
    ms = sorted(t * 1000 for t in best)
    return {
        "mean_ms": round(statistics.fmean(ms), 4),
        "p50_ms": round(ms[len(ms) // 2], 4),
        "p95_ms": round(ms[int(len(ms) * 0.95)], 4),
        "max_ms": round(ms[-1], 4),
    }


if __name__ == "__main__":
    main()
