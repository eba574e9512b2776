"""The generated client (clients/python, package ``zsc_client``): in sync with the service, and working.

The committed client is generated from clients/openapi.json by clients/regenerate.py. These tests fail when
the service's OpenAPI document (live ``/docs.json``) no longer matches that file, when the committed code is
not what the file generates, and when the client cannot classify through a live server, sync or async.
Fix: ``make client`` (``.venv/bin/python clients/regenerate.py``) and commit clients/.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import httpx
import pytest

from tests.support.server import ROOT

sys.path.insert(0, str(ROOT / "clients"))
import regenerate  # noqa: E402  (clients/regenerate.py)

if importlib.util.find_spec("zsc_client") is None:  # not pip-installed: use the committed package as it is
    sys.path.insert(0, str(ROOT / "clients" / "python"))
from zsc_client import Client  # noqa: E402
from zsc_client.api.classifier import classify, classify_batch  # noqa: E402
from zsc_client.api.infrastructure import get_readyz  # noqa: E402
from zsc_client.models import ClassifyBatchBody, ClassifyBody, ClassifyRequest, ClassifyResult, InvalidArgument  # noqa: E402

LABELS = ["sports", "business", "technology"]
needs_generator = pytest.mark.skipif(
    shutil.which("openapi-python-client", path=str(Path(sys.executable).parent)) is None
    and shutil.which("openapi-python-client") is None,
    reason="openapi-python-client is not installed (pyproject's dev extra)",
)


@pytest.fixture(scope="module")
def live_schema(default_server):
    """The whole API as the live service describes it: BentoML's /docs.json plus the mounted routes."""
    whole = httpx.get(f"{default_server}/openapi.json", timeout=30).json()
    assert whole == regenerate.schema_from_url(default_server)  # /docs.json merged on this side: the same
    assert {"/jobs", "/jobs/{job_id}", "/jobs/{job_id}/results", "/label_sets"} <= set(whole["paths"])
    return whole


def test_committed_schema_matches_the_live_service(live_schema):
    diff = regenerate.schema_diff(regenerate.committed_schema(), live_schema)
    assert not diff, "the service's API changed; run `make client` and commit clients/:\n" + "\n".join(diff[:80])


@needs_generator
def test_committed_client_is_what_the_committed_schema_generates():
    files = regenerate.code_diff(regenerate.committed_schema())
    assert not files, "clients/python was edited or generated elsewhere; run `make client`:\n" + "\n".join(files)


@needs_generator
def test_schema_drift_is_caught(live_schema, default_server, tmp_path, monkeypatch):
    """Edit a copy of the schema the way a service change would; both checks must notice."""
    edited = copy.deepcopy(live_schema)
    ref = edited["paths"]["/classify"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = edited["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    request["properties"]["language"] = {"type": "string", "title": "Language"}
    request["required"] = [*request["required"], "language"]
    diff = regenerate.schema_diff(regenerate.committed_schema(), edited)
    assert any("language" in line for line in diff), diff
    # the client generated from the edited copy differs from the committed one
    files = regenerate.code_diff(edited)
    assert "differs: zsc_client/models/classify_body.py" in files, files
    # a removed endpoint shows too
    dropped = copy.deepcopy(live_schema)
    del dropped["paths"]["/classify_batch"]
    assert any("/classify_batch" in line for line in regenerate.schema_diff(regenerate.committed_schema(), dropped))
    # and the one-command check (`clients/regenerate.py --check`) exits 1 on the stale copy, 0 on the real one
    stale = tmp_path / "openapi.json"
    stale.write_text(regenerate.dumps(regenerate.normalise(edited)))
    monkeypatch.setattr(regenerate, "SCHEMA", stale)
    assert regenerate.main(["--check", "--from-url", default_server]) == 1
    monkeypatch.undo()
    assert regenerate.main(["--check", "--from-url", default_server]) == 0


def test_normalise_ignores_build_details_only(live_schema):
    other = copy.deepcopy(live_schema)
    other["info"] = {"title": "zero_shot_classifier", "version": "abc123", "description": "a bento README"}
    other["servers"] = [{"url": "http://elsewhere"}]
    assert regenerate.schema_diff(live_schema, other) == []
    other["paths"]["/classify"]["post"]["responses"].pop("400")
    assert regenerate.schema_diff(live_schema, other) != []


def test_sync_client_classifies(default_server):
    with Client(base_url=default_server, timeout=httpx.Timeout(60)) as client:
        assert get_readyz.sync_detailed(client=client).status_code == 200
        out = classify.sync(
            client=client, body=ClassifyBody(text="The striker scored twice in the cup final", labels=LABELS)
        )
        assert isinstance(out, ClassifyResult), out
        assert out.labels[0] == "sports"
        assert sum(out.scores) == pytest.approx(1.0, abs=1e-6)
        assert out.model.startswith("multilingual-e5-small:")

        multi = classify.sync(
            client=client,
            body=ClassifyBody(
                text="Shares fell after the earnings call", labels=LABELS, multi_label=True, hypothesis_template="{}"
            ),
        )
        assert multi.multi_label is True and multi.labels[0] == "business"

        bad = classify.sync_detailed(client=client, body=ClassifyBody(text="", labels=LABELS))
        assert bad.status_code == 400
        assert isinstance(bad.parsed, InvalidArgument)
        assert "text is empty" in json.dumps(json.loads(bad.content)["detail"])


def test_sync_client_batch(default_server):
    items = [
        ClassifyRequest(text="The tennis player won the match in straight sets", labels=LABELS),
        ClassifyRequest(text="The company raised its profit outlook", labels="sports, business, technology"),
    ]
    with Client(base_url=default_server, timeout=httpx.Timeout(60)) as client:
        out = classify_batch.sync(client=client, body=ClassifyBatchBody(items=items))
    assert [r.labels[0] for r in out.results] == ["sports", "business"]


def test_async_client_classifies_concurrently(default_server):
    texts = {
        "The striker scored twice in the cup final": "sports",
        "Shares of the bank fell 5% after earnings": "business",
        "A software update fixes a security bug": "technology",
    }

    async def run() -> list[str]:
        async with Client(base_url=default_server, timeout=httpx.Timeout(60)) as client:
            answers = await asyncio.gather(
                *(classify.asyncio(client=client, body=ClassifyBody(text=t, labels=LABELS)) for t in texts)
            )
            detailed = await classify.asyncio_detailed(client=client, body=ClassifyBody(text="x", labels=[]))
            assert detailed.status_code == 400
        return [a.labels[0] for a in answers]

    assert asyncio.run(run()) == list(texts.values())


def test_typed_client_label_objects_decisions_and_long_texts(default_server):
    from zsc_client.models import LabelObject

    labels = [
        LabelObject(name="billing", description="payments, refunds and invoices"),
        LabelObject(name="shipping", description=["delivery", "where a parcel is"]),
        "praise",
    ]
    with Client(base_url=default_server, timeout=httpx.Timeout(60)) as client:
        out = classify.sync(
            client=client,
            body=ClassifyBody(text="My card was charged twice for one order", labels=labels, threshold=0.5, top_k=2),
        )
        assert len(out.labels) == len(out.scores) == 2 and set(out.labels) <= {"billing", "shipping", "praise"}
        assert out.predicted == (out.labels[0] if out.scores[0] >= 0.5 else None)
        assert out.windows == 1 and out.truncated is False and out.warnings == []
        multi = classify.sync(
            client=client,
            body=ClassifyBody(
                text="Great shop, but my card was charged twice", labels=labels, multi_label=True, threshold=0.0
            ),
        )
        assert sorted(multi.predicted) == ["billing", "praise", "shipping"]
        long = classify.sync(
            client=client,
            body=ClassifyBody(text="The match report. " * 400, labels=["sports", "cooking"], truncation="chunk"),
        )
        assert long.windows > 1 and long.truncated is False
        with_examples = [LabelObject(name="billing", examples=["charged twice", "wrong invoice"]), "shipping"]
        body = {"text": "My card was charged twice", "labels": with_examples, "example_rule": "prototype"}
        typed = classify.sync(client=client, body=ClassifyBody(**body))
        raw = [{"name": "billing", "examples": ["charged twice", "wrong invoice"]}, "shipping"]
        plain = httpx.post(f"{default_server}/classify", json={**body, "labels": raw}, timeout=60).json()
        assert typed.labels == plain["labels"] and typed.scores == plain["scores"]


def test_typed_client_runs_a_job_and_lists_label_sets(default_server):
    """The routes mounted beside BentoML's APIs are in the client too (service/http/openapi.py)."""
    import time

    from zsc_client.api.classifier import label_sets
    from zsc_client.api.jobs import cancel_job, delete_job, job_results, job_status, submit_job
    from zsc_client.models import ErrorBody, JobAnswer, JobResultsPage, JobStatus, JobSubmission

    texts = ["The striker scored twice", "Shares fell after the results", "A new phone was announced"]
    with Client(base_url=default_server, timeout=httpx.Timeout(60)) as client:
        job = submit_job.sync(client=client, body=JobSubmission(texts=texts, labels=LABELS))
        assert isinstance(job, JobStatus) and job.total == 3 and job.links.self_ == f"/jobs/{job.id}"
        for _ in range(300):
            status = job_status.sync(job.id, client=client)
            if status.state == "done":
                break
            time.sleep(0.2)
        assert status.done == 3
        page = job_results.sync(job.id, client=client, offset=1, limit=2)
        assert isinstance(page, JobResultsPage) and [r.index for r in page.results] == [1, 2]
        assert all(isinstance(r, JobAnswer) for r in page.results) and page.next_offset is None
        direct = classify.sync(client=client, body=ClassifyBody(text=texts[1], labels=LABELS))
        assert page.results[0].labels == direct.labels and page.results[0].scores == direct.scores
        assert cancel_job.sync(job.id, client=client).state == "done"  # finished: cancel changes nothing
        assert delete_job.sync_detailed(job.id, client=client).status_code == 204
        gone = job_status.sync(job.id, client=client)
        assert isinstance(gone, ErrorBody) and gone.error_type == "job_not_found"
        assert delete_job.sync(job.id, client=client).error_type == "job_not_found"
        missing = job_status.sync("nope", client=client)
        assert isinstance(missing, ErrorBody) and missing.error_type == "job_not_found"
        sets = {s.name: s for s in label_sets.sync(client=client).label_sets}  # the default server's: the shipped ones
        shipped, with_examples = sets["support-intents"], sets["support-intents-examples"]
        assert shipped.name == "support-intents" and shipped.matches_model and shipped.examples == 0
        assert with_examples.name == "support-intents-examples" and with_examples.examples > 0


def test_the_typed_client_asks_openai_shaped_decisions(default_server):
    from zsc_client.api.openai import create_decision, list_openai_models
    from zsc_client.models import ChoiceAnswer, Decision, DecisionCreateRequest, OpenAIErrorBody, PredicateAnswer

    questions = [
        {
            "type": "choice",
            "name": "topic",
            "instructions": "What is it about?",
            "choices": [{"value": "sports"}, {"value": "business"}, {"value": True}],
        },  # fmt: skip
        {"type": "predicate", "instructions": "A goal was scored."},
    ]
    body = DecisionCreateRequest.from_dict(
        {"model": "multilingual-e5-small", "input": "The striker scored twice in the cup final", "questions": questions}
    )
    with Client(base_url=default_server, timeout=httpx.Timeout(60)) as client:
        out = create_decision.sync(client=client, body=body)
        assert isinstance(out, Decision) and isinstance(out.answers[0], ChoiceAnswer), out
        assert out.answers[0].choice == "sports" and out.answers[0].probabilities[2].value is True
        assert isinstance(out.answers[1], PredicateAnswer) and out.answers[1].name is None
        assert "multilingual-e5-small" in [m.id for m in list_openai_models.sync(client=client).data]
        bad = create_decision.sync_detailed(
            client=client, body=DecisionCreateRequest.from_dict({**body.to_dict(), "model": "x"})
        )
        assert bad.status_code == 404 and isinstance(bad.parsed, OpenAIErrorBody) and bad.parsed.error.param == "model"
