"""schemathesis against the real gunicorn: generated requests (valid and invalid) for every operation.

Checks: no 5xx, every status code documented, and every response body
(success and error envelope alike) valid against its schema with the declared
content type; and the document and the validators agree both ways: what the
document calls valid is accepted (positive phase: not a 4xx but 413 for a
decklist past the size limit, which the document states in words), what it
calls invalid is refused (negative phase). Bounded and derandomized, so the run
is the same every time.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    positive_data_acceptance,
    negative_data_rejection,
]

schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture(scope="session")
def api_schema(live_server):
    return schemathesis.openapi.from_url(f"{live_server}/api/v1/openapi.json")


@schema.parametrize()
@settings(
    max_examples=30,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
@pytest.mark.slow
def test_api_conforms_to_its_openapi_document(case):
    case.call_and_validate(checks=CHECKS, timeout=30)
