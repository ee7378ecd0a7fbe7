"""marshmallow schemas for every request and response of the JSON API.

They validate what callers send and describe what the service answers; the
OpenAPI document at ``/api/v1/openapi.json`` is generated from them. Response
schemas describe the dicts that ``to_dict()`` builds in the core modules
exactly: a key always written is required, a key written only sometimes
(``chat``, ``forecast``) is not, and no other key is allowed.
tests/service/test_report_shape.py compares ``Report.to_dict`` with
:class:`ReportSchema` key by key over real answers, both ways; the schemathesis
run checks the served answers against the document.

One module per subject: :mod:`.request` (what callers send), :mod:`.report` (the verdict on a deck),
:mod:`.cards` (a printing, a search), :mod:`.format` (a format), :mod:`.status` (health, readiness, the error
envelope), and :mod:`.fields`, the field helpers they share.
"""

from __future__ import annotations

from .cards import CardSchema, CardSearchSchema
from .fields import StrictBoolean
from .format import FormatListSchema, FormatSchema
from .report import ReportSchema
from .request import CardQuerySchema, ValidateQuerySchema, ValidateRequestSchema
from .status import ERROR_CODES, ErrorSchema, HealthSchema, ReadySchema

__all__ = [
    "ERROR_CODES",
    "CardQuerySchema",
    "CardSchema",
    "CardSearchSchema",
    "ErrorSchema",
    "FormatListSchema",
    "FormatSchema",
    "HealthSchema",
    "ReadySchema",
    "ReportSchema",
    "StrictBoolean",
    "ValidateQuerySchema",
    "ValidateRequestSchema",
]
