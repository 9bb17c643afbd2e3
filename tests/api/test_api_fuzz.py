"""Bad input: schemathesis fuzzes every operation of the OpenAPI document over real HTTP and
finds no 5xx (a bounded number of examples per operation keeps this well under a minute)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from scripted_server import ScriptedServer

from mnemo import Settings
from mnemo.api.app import create_app
from mnemo.api.server import BackgroundServer

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    db = Path(tmp_path_factory.mktemp("fuzz")) / "mnemo.db"
    with ScriptedServer() as upstream:
        upstream_settings = Settings(
            path=str(db), embedder="hashing", upstream_base_url=upstream.url
        )
        srv = BackgroundServer(create_app(upstream_settings)).start()
        try:
            yield schemathesis.openapi.from_url(srv.url + "/openapi.json")
        finally:
            srv.stop()


def check(case: schemathesis.Case) -> None:
    """One generated request: never a 5xx, and every error is the JSON error body."""
    response = case.call(timeout=30)
    assert response.status_code < 500, (case.method, case.path, response.status_code, response.text)
    if response.status_code >= 400 and case.path not in ("/v1/models", "/v1/chat/completions"):
        assert "message" in response.json()["error"]


def test_no_server_errors(api_schema: schemathesis.BaseSchema) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 15
    for operation in operations:
        run = given(case=operation.as_strategy())(check)
        settings(
            max_examples=EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )(run)()
