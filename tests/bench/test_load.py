"""bench/load.py logs the demo operators in through the real OTP page with codes it computes
itself, and reads percentiles from its samples: both must agree with what they stand for."""

import importlib

from django.test import override_settings

from identity.demo import demo_totp_key

load = importlib.import_module("bench.load")


def test_the_bench_computes_the_demo_operators_current_totp_code() -> None:
    with override_settings(SECRET_KEY=load.SECRET):
        for username in ("alice", "sam"):
            for at in (1_700_000_000, 1_800_000_031):
                code = load.totp(username, at)
                assert code == f"{_totp_at(demo_totp_key(username), at):06d}"


def _totp_at(key: bytes, at: int) -> int:
    from django_otp.oath import TOTP

    generator = TOTP(key, step=30, t0=0, digits=6, drift=0)
    generator.time = at
    return int(generator.token())


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert load.percentile(values, 50) == 50.0
    assert load.percentile(values, 95) == 95.0
    assert load.percentile(values, 99) == 99.0
    assert load.percentile([], 95) == 0.0
