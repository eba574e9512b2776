"""Calls at the pipeline's seam built from /classify bodies, as the HTTP layer builds them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.api.classify import ClassifyRequest
from service.core.classification import Classification
from service.pipeline.call import Call
from service.pipeline.label_sets import Resolved


def classification(body: dict[str, Any] | ClassifyRequest) -> Classification:
    request = body if isinstance(body, ClassifyRequest) else ClassifyRequest.model_validate(body)
    return request.classification()


def call(items: Iterable[dict | ClassifyRequest | Classification | Resolved], **options: Any) -> Call:
    """A call of these items (bodies or requests are validated and converted as /classify converts them)."""
    out = tuple(x if isinstance(x, Classification | Resolved) else classification(x) for x in items)
    return Call(out, **options)
