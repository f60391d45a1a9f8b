import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_check(env_overrides: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    env.update(env_overrides)
    env["DJANGO_SETTINGS_MODULE"] = "backoffice.settings"
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_it_refuses_to_start_without_secret_key_when_debug_is_off(tmp_path: Path) -> None:
    result = run_check({"DEBUG": "0", "VAR_DIR": str(tmp_path)})
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_it_generates_a_secret_key_into_var_when_debugging(tmp_path: Path) -> None:
    result = run_check({"DEBUG": "1", "VAR_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    key = (tmp_path / "secret_key").read_text()
    assert len(key) >= 50
    again = run_check({"DEBUG": "1", "VAR_DIR": str(tmp_path)})
    assert again.returncode == 0
    assert (tmp_path / "secret_key").read_text() == key
