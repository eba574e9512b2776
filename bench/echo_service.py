"""A trivial service served exactly like ours (same BentoML, same request schema and validation, same
async endpoint shape) that does no work: the per-request ceiling of the HTTP layer, for comparison.

    bentoml serve bench.echo_service:Echo --port 3999
"""

from __future__ import annotations

import bentoml

from service.api.classify import ClassifyRequest, ClassifyResponse


@bentoml.service(name="echo", workers=1, traffic={"timeout": 60})
class Echo:
    @bentoml.api(route="/classify")
    async def classify(self, request: ClassifyRequest, /, ctx: bentoml.Context) -> ClassifyResponse:
        labels = request.label_list
        ctx.response.headers["X-Cache"] = "hit"
        return ClassifyResponse(
            labels=labels, scores=[1.0 / len(labels)] * len(labels), multi_label=False, model="echo", revision="none"
        )

    @bentoml.api(route="/echo_batch", batchable=True, max_batch_size=64, max_latency_ms=10000)
    def echo_batch(self, items: list[ClassifyRequest]) -> list[ClassifyResponse]:
        return [
            ClassifyResponse(
                labels=i.label_list, scores=[1.0] * len(i.label_list), multi_label=False, model="echo", revision="none"
            )
            for i in items
        ]
