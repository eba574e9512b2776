"""The bundled default model over real HTTP: the README's curl, sensible answers, health, metrics."""

from __future__ import annotations

import httpx
import pytest


def classify(url, **body):
    r = httpx.post(f"{url}/classify", json=body, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def test_readme_example(default_server):
    out = classify(
        default_server,
        text="My card was charged twice for one order",
        labels=["billing", "shipping", "praise"],
    )
    assert out["labels"][0] == "billing"
    assert sorted(out["labels"]) == ["billing", "praise", "shipping"]
    assert out["scores"] == sorted(out["scores"], reverse=True)
    assert sum(out["scores"]) == pytest.approx(1.0, abs=1e-6)
    assert out["model"].startswith("multilingual-e5-small:") and out["revision"].startswith("sha256:")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The striker scored twice and the team won the championship final", "sports"),
        ("The tennis player won the match in straight sets at Wimbledon", "sports"),
        ("Shares of the bank fell 5% after quarterly earnings missed forecasts", "business"),
        ("The company reported record revenue and raised its profit outlook", "business"),
        ("The new smartphone chip runs machine learning models faster on the device", "technology"),
        ("A software update fixes a security bug in the operating system", "technology"),
    ],
)
def test_bundled_model_gives_sensible_answers(default_server, text, expected):
    out = classify(default_server, text=text, labels=["sports", "business", "technology"])
    assert out["labels"][0] == expected, out


@pytest.mark.parametrize(
    "text, labels, expected",
    [
        ("主队在加时赛中绝杀对手夺得联赛冠军", "体育，财经，科技", "体育"),
        ("央行宣布下调存款准备金率，股市应声大涨", "体育，财经，科技", "财经"),
        ("新款手机搭载了更快的芯片和更大的内存", "体育，财经，科技", "科技"),
        ("我的快递三天了还没到，什么时候发货？", ["物流", "退款", "表扬"], "物流"),
    ],
)
def test_the_default_model_classifies_chinese(default_server, text, labels, expected):
    """The default model is multilingual: Chinese text with Chinese labels, out of the box."""
    out = classify(default_server, text=text, labels=labels)
    assert out["labels"][0] == expected, out


def test_labels_as_comma_separated_string_ascii_and_full_width(default_server):
    out = classify(default_server, text="Where is my parcel?", labels="billing, shipping，praise")
    assert sorted(out["labels"]) == ["billing", "praise", "shipping"]


def test_multi_label_scores_stand_alone(default_server):
    out = classify(
        default_server,
        text="The football club's shares jumped on the stock market",
        labels=["sports", "business", "cooking"],
        multi_label=True,
    )
    assert out["multi_label"] is True
    assert all(0 < s < 1 for s in out["scores"])
    assert out["labels"][-1] == "cooking"


def test_template_changes_the_hypothesis(default_server):
    a = classify(default_server, text="I love this phone", labels=["praise", "complaint"])
    b = classify(
        default_server,
        text="I love this phone",
        labels=["praise", "complaint"],
        hypothesis_template="This customer message is a {}.",
    )
    assert a["scores"] != b["scores"]


def test_classify_batch_answers_each_item_in_order(default_server):
    items = [
        {"text": "The striker scored twice in the final", "labels": ["sports", "business"]},
        {"text": "Shares fell after the earnings call", "labels": "sports, business, technology"},
        {
            "text": "Where is my order? It has not shipped",
            "labels": ["shipping", "praise"],
            "multi_label": True,
        },
    ]
    r = httpx.post(f"{default_server}/classify_batch", json={"items": items}, timeout=60)
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [res["labels"][0] for res in results] == ["sports", "business", "shipping"]
    for item, res in zip(items, results):
        alone = classify(default_server, **item)
        assert res["labels"] == alone["labels"]
        assert res["scores"] == pytest.approx(alone["scores"], abs=1e-6)


def test_health_and_metrics(default_server):
    assert httpx.get(f"{default_server}/livez").status_code == 200
    assert httpx.get(f"{default_server}/readyz").status_code == 200
    classify(default_server, text="ping", labels=["a", "b"])
    metrics = httpx.get(f"{default_server}/metrics").text
    assert "bentoml_service_request_total" in metrics
    for name in ("zsc_batch_requests", "zsc_sequences_total", "zsc_cache_requests_total", "zsc_cache_responses_total"):
        assert name in metrics, name


def test_openapi_documents_the_endpoints(default_server):
    doc = httpx.get(f"{default_server}/docs.json").json()
    assert {"/classify", "/classify_batch"} <= set(doc["paths"])
