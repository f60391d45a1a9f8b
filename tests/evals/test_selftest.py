"""`golive selftest`: per domain and fault, the share of injected faults the oracle caught;
stored and shown on the report pages."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evals.engine import faults
from evals.models import EvalSelftest
from tests.conftest import verified_client
from tests.evals.conftest import golive

pytestmark = pytest.mark.django_db


def test_selftest_reports_each_fault_and_stores_the_sensitivity(rita) -> None:
    code, out, _ = golive("selftest", "--domains", "retail", "--split", "smoke", "--as", "rita")
    assert code == 0, out
    selftest = EvalSelftest.objects.get()
    results = selftest.results["retail"]
    assert set(results) == set(faults.EXPECTED)
    nothing = results[faults.DO_NOTHING]
    assert nothing["applied"] == nothing["tasks"] == 5
    assert nothing["caught"] == 5 and nothing["sensitivity"] == 1.0
    for fault, r in results.items():
        assert 0 <= r["caught"] <= r["applied"] <= r["tasks"], fault
        assert fault in out
    page = verified_client(rita).get(reverse("evals:run_list")).content.decode()
    assert 'data-testid="selftest"' in page and "do_nothing" in page


def test_selftest_on_an_unknown_domain_exits_2(rita) -> None:
    code, _, err = golive("selftest", "--domains", "nowhere", "--as", "rita")
    assert code == 2 and "nowhere" in err
    assert not EvalSelftest.objects.exists()
