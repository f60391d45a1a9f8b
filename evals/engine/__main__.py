"""`python -m evals.engine run|list`: the engine alone, without Django (see evals.engine.cli)."""

from evals.engine.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
