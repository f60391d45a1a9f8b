"""The model registry under concurrency: plugins are imported once, and no thread can look a
name up while they are still registering."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.engine import registry

PLUGIN = """
import time
from evals.engine.registry import register_agent_resolver

time.sleep(0.3)  # a slow import: other threads look names up meanwhile

def _factory(*, domain, params, seed):
    return "race-agent"

def _resolver(name):
    return _factory

register_agent_resolver("racetest/", _resolver)
IMPORTS = globals().get("IMPORTS", 0) + 1
"""


@pytest.fixture
def slow_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    (tmp_path / "evals_race_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry._load_plugins()  # the real plugins first, as in any process
    monkeypatch.setattr(registry, "PLUGIN_MODULES", ("evals_race_plugin",))
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    yield "evals_race_plugin"
    registry._agent_resolvers.pop("racetest/", None)
    sys.modules.pop("evals_race_plugin", None)


def test_threads_looking_up_during_a_slow_plugin_import_all_get_the_plugin(
    slow_plugin: str,
) -> None:
    threads = 48
    barrier = threading.Barrier(threads)
    results: list[object] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def look_up() -> None:
        barrier.wait()
        try:
            factory = registry.agent_factory("racetest/model")
            value = factory(domain=None, params={}, seed=0)
        except BaseException as exc:
            with lock:
                errors.append(exc)
            return
        with lock:
            results.append(value)

    workers = [threading.Thread(target=look_up) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []
    # Had a thread resolved before the plugin registered, the name would have fallen through
    # to the LiteLLM fallback resolver (or "Unknown agent") instead of the plugin's factory.
    assert results == ["race-agent"] * threads
    assert sys.modules[slow_plugin].IMPORTS == 1
    assert registry._plugins_loaded is True


def test_a_failing_plugin_import_is_retried_by_the_next_lookup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "evals_broken_plugin.py").write_text("raise RuntimeError('broken plugin')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry._load_plugins()
    monkeypatch.setattr(registry, "PLUGIN_MODULES", ("evals_broken_plugin",))
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    try:
        with pytest.raises(RuntimeError, match="broken plugin"):
            registry.agent_factory("sandbox/reference")
        assert registry._plugins_loaded is False
    finally:
        sys.modules.pop("evals_broken_plugin", None)
