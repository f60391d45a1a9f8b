"""A newcomer's first run (issue 15, item 12), as they live it: migrate and seed a fresh
install exactly as `make run` does, in its own directory, then read the output, run the TOTP
command it prints in a plain terminal (no make, no activated virtualenv, no DEBUG), and sign
in with it in a browser served by `manage.py runserver`, at a desk's and at a phone's width.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from identity.demo import DEMO_PASSWORD
from tests.e2e.conftest import READING_MS, SCREENSHOTS, WIDTHS

ROOT = Path(__file__).resolve().parents[2]
# What a newcomer's own shell does not have: make's DEBUG=1, an activated virtualenv, and the
# test run's database, broker and settings.
NOT_IN_A_NEWCOMERS_SHELL = {
    "DEBUG",
    "VIRTUAL_ENV",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "SECRET_KEY",
    "DJANGO_SETTINGS_MODULE",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "PYTHONPATH",
}


def _plain_shell_env(**extra: str) -> dict[str, str]:
    venv_bin = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if k not in NOT_IN_A_NEWCOMERS_SHELL}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    env.update(extra)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FirstRun:
    def __init__(self, var_dir: Path, output: str, base_url: str) -> None:
        self.var_dir, self.output, self.base_url = var_dir, output, base_url


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FirstRun]:
    var_dir = tmp_path_factory.mktemp("first-run-var")
    # `make seed` runs these with the virtualenv's Python and DEBUG=1 (the Makefile's default).
    env = _plain_shell_env(DEBUG="1", VAR_DIR=str(var_dir))
    python = [sys.executable, "manage.py"]
    subprocess.run([*python, "migrate", "--no-input"], cwd=ROOT, env=env, check=True,
                   capture_output=True)  # fmt: skip
    seeded = subprocess.run(
        [*python, "seed_demo"], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    port = _free_port()
    server = subprocess.Popen(
        [*python, "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base_url}/login/", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.3)
        yield FirstRun(var_dir, seeded.stdout + seeded.stderr, base_url)
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_the_readme_says_how_to_pick_the_address_and_port() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "make run HOST=0.0.0.0 PORT=8080" in readme
    assert "ALLOWED_HOSTS" in readme.split("make run HOST=0.0.0.0 PORT=8080", 1)[1][:600]
    makefile = (ROOT / "Makefile").read_text()
    assert "HOST ?=" in makefile and "PORT ?=" in makefile
    assert "runserver $(HOST):$(PORT)" in makefile


def test_the_first_seed_warns_of_no_broker_and_ends_with_the_api_token(
    first_run: FirstRun,
) -> None:
    output = first_run.output
    # No broker configured: tasks run in-process, and nothing says otherwise.
    assert "kombu" not in output and "WARNING" not in output and "hostname" not in output
    lines = [line for line in output.splitlines() if line.strip()]
    table = lines.index("Demo operators (add the TOTP secret to an authenticator app):")
    # The token comes after the login table, at the end, where a person reading the output
    # stops; and it is the working token of the agent runtime's principal.
    tail = lines[table:]
    token_line = next(i for i, line in enumerate(tail) if "new API token" in line)
    assert token_line > len(DEMO_USERNAMES)
    assert len(tail) - token_line <= 3
    raw = tail[token_line + 1].strip()
    assert re.fullmatch(r"bo_[0-9a-f]+_\S+", raw)
    request = urllib.request.Request(
        f"{first_run.base_url}/api/v1/payments", headers={"Authorization": f"Bearer {raw}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
        # The seeded payments, read with the printed token (no cookie, no session).
        assert b"USD" in response.read()


DEMO_USERNAMES = ("alice", "carol", "bob", "erin", "sam", "ada", "audrey", "rita")


def _printed_totp_command(output: str, username: str) -> str:
    hint = next(line for line in output.splitlines() if "totp_code <username>" in line)
    command = hint.split(": ", 1)[1].strip()
    return command.replace("<username>", username)


@pytest.mark.parametrize(("width", "username"), [("desk", "alice"), ("phone", "carol")])
def test_a_newcomer_signs_in_with_the_code_of_the_printed_totp_command(
    first_run: FirstRun, browser: Any, width: str, username: str
) -> None:
    command = _printed_totp_command(first_run.output, username)
    # Typed into a plain terminal in the checkout, as printed.
    done = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, env=_plain_shell_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, f"{command!r} failed: {done.stderr.strip()[-400:]}"
    code = re.match(r"(\d{6})\b", done.stdout.strip())
    assert code, done.stdout

    w, h = WIDTHS[width]
    context = browser.new_context(base_url=first_run.base_url, viewport={"width": w, "height": h})
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        page.goto("/login/")
        page.wait_for_timeout(READING_MS)
        page.fill("#id_username", username)
        page.fill("#id_password", DEMO_PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url("**/login/verify/**")
        page.wait_for_timeout(READING_MS)
        page.fill("#id_code", code.group(1))
        page.click("main button[type=submit]")
        page.wait_for_url(lambda url: "/login/" not in url)
        page.wait_for_timeout(READING_MS)
        assert page.is_visible("text=Log out")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"first-run-{width}.png"), full_page=True)
    finally:
        context.close()
