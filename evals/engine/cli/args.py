"""The command line's argument types: each bad value is a one-line error (exit status 2)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any, NoReturn


class CommandError(Exception):
    """A command-line mistake; `str()` is the one line printed."""


class Parser(argparse.ArgumentParser):
    """argparse's errors as one line ("python -m evals.engine run: ..."), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def ks_list(text: str) -> list[int]:
    try:
        ks = [int(k) for k in csv(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--ks takes whole numbers, comma-separated, not {text!r}"
        ) from None
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError(f"--ks takes numbers of at least 1, not {text!r}")
    return ks


def json_object(flag: str) -> Callable[[str], dict[str, Any]]:
    """The parser of a JSON-object flag (--agent-args): a malformed one is a one-line error."""

    def parse(text: str) -> dict[str, Any]:
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{flag} is not valid JSON ({exc})") from None
        if not isinstance(value, dict):
            raise argparse.ArgumentTypeError(
                f"{flag} takes a JSON object such as '{{\"temperature\": 0}}', "
                f"not {type(value).__name__}"
            )
        return value

    return parse


def at_least(low: float, kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {kind.__name__} value: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"takes at least {low}, not {text}")
        return value

    return parse


def csv(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",") if p.strip())
