"""The System One API below HTTP: a request's named questions as classifications
(``api.systemone.adapters``), every one of them in one ``ModelRegistry.classify`` call, and their scores as
answers keyed by the names. The model, its calibration and sharpening, the limits, the call and its token
counts are the Decisions API's (``pipeline.decisions.Decisions``): the two APIs differ only in their shapes.
"""

from __future__ import annotations

from service.api.systemone.adapters import answers_of, ask, text_problem
from service.api.systemone.protocol import SystemOneRequest, SystemOneResponse, SystemOneUsage
from service.pipeline.decisions import Decisions


class SystemOne:
    def __init__(self, decisions: Decisions) -> None:
        self.decisions = decisions

    async def answer(self, request: SystemOneRequest) -> tuple[SystemOneResponse, str]:
        """The answers by question name, and the call's cache status (hit | partial | miss)."""
        decisions = self.decisions
        served = decisions.model(request.model)
        spec, reading = served.spec, decisions.reading(served.spec)
        problem = text_problem(request, decisions.limits)  # first: the wording below reads every text
        plan = ask(request, served.name, spec.kind, reading.cohort) if problem is None else None
        decisions.check(plan, problem)
        done = await decisions.answer(plan, spec, text="state")
        answers = answers_of(request, plan, done.results, spec, reading)
        usage = SystemOneUsage(input_tokens=done.read, output_tokens=0)
        return SystemOneResponse(answers=answers, model=served.tag, usage=usage), done.cache
