"""API fuzzing (issue 7): Schemathesis generates requests from the app's own
OpenAPI schema (``/api/openapi.json``) and sends them to a real server over
loopback. Every answer must be no 5xx, carry a documented status code and
content type, and match the documented response schema.

The rates are raised here so the fuzzer reaches the code behind them (the
limits themselves have their own tests in ``test_guard.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, settings  # noqa: E402
from live import live_server  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from liars_dice.server import Settings  # noqa: E402

#: Examples per API operation and mode: about 20 s for the whole API.
EXAMPLES = 25


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    db = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    settings = Settings(db_url=f"sqlite:///{db}", bot_delay=0.0, create_rate="100000/minute", join_rate="100000/minute",
                        miss_rate="100000/minute", lookup_rate="100000/minute", open_tables_per_address=100000,
                        # the accounts routes (issue 18): reached, with a light Argon2id so each case is quick
                        signin_rate_address="100000/minute", signin_rate_name="100000/minute",
                        argon2_memory_kib=8192, argon2_time_cost=1, argon2_parallelism=1)
    with live_server(settings) as url:
        yield schemathesis.openapi.from_url(f"{url}/api/openapi.json")


def test_api_never_fails_and_matches_its_schema(api_schema: object) -> None:
    """Every operation of the schema, :data:`EXAMPLES` generated requests each,
    valid ones and invalid ones (Schemathesis' strategies, run by Hypothesis)."""
    from hypothesis import given
    from hypothesis.errors import Unsatisfiable

    from schemathesis.generation import GenerationMode

    counts: dict[str, int] = {}
    for result, mode in itertools.product(api_schema.get_all_operations(), GenerationMode):  # type: ignore[attr-defined]
        operation = result.ok()
        label = f"{operation.label} ({mode.value})"
        counts[label] = 0

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                  database=None)
        def run(case: object) -> None:
            counts[label] += 1
            case.call_and_validate(  # type: ignore[attr-defined]
                checks=[not_a_server_error, status_code_conformance, content_type_conformance,
                        response_schema_conformance],
            )

        try:
            run()
        except Unsatisfiable:  # no invalid request exists (an operation without inputs)
            assert mode is GenerationMode.NEGATIVE
            del counts[label]
    print("schemathesis cases per operation:", counts, "total", sum(counts.values()))
    assert len(counts) >= 12 and all(n > 0 for n in counts.values()), counts


def test_the_schema_describes_real_responses(api_schema: object) -> None:
    """The fuzzer checks something: the answers of the main operations have real schemas."""
    raw = api_schema.raw_schema  # type: ignore[attr-defined]
    ok = raw["paths"]["/api/tables"]["post"]["responses"]["201"]["content"]["application/json"]["schema"]
    assert ok.get("$ref", "").endswith("/Created")
    assert "429" in raw["paths"]["/api/tables"]["post"]["responses"]
    assert Path(__file__).exists()
