"""The /ui page in a real headless Chromium (Playwright) against a live replica with a label set.

It classifies the English and Chinese examples and checks the rendered ranking against the API's answer,
shows a 4xx message, uses the label-set picker, renders a hostile label as text, runs a job from a file to
completion and cancels one, works by keyboard and at phone width, and saves screenshots (``ZSC_UI_SCREENSHOTS`` names a
folder to keep them in; else the test's temporary folder).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import httpx
import pytest

from tests.support.server import bento_server

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in pyproject's dev extra")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HOSTILE = "<img src=x onerror=alert(1)>"
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def server(default_server):
    """The session's default server: it holds the shipped label set the page offers."""
    return default_server


@pytest.fixture(scope="module")
def browser():
    assert Path(CHROMIUM).exists(), "chromium is needed (apt-get install chromium; make system-deps)"
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    page.problems = []  # console errors, page errors, dialogs: none expected
    page.on("pageerror", lambda e: page.problems.append(f"page error: {e}"))
    page.on("console", lambda m: m.type == "error" and "400" not in m.text and page.problems.append(m.text))
    page.on("dialog", lambda d: (page.problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.goto(f"{server}/ui")
    yield page
    context.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("ZSC_UI_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def rendered(page) -> list[tuple[str, float]]:
    page.wait_for_selector("#ranking li")
    rows = page.locator("#ranking li")
    return [
        (rows.nth(i).locator(".name").inner_text(), float(rows.nth(i).locator(".score").inner_text()))
        for i in range(rows.count())
    ]


def api(server, body) -> dict:
    r = httpx.post(f"{server}/classify", json=body, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize(
    ("preset", "shot"), [("English: support ticket", "ui-english.png"), ("中文：客服", "ui-chinese.png")]
)
def test_examples_render_the_api_ranking(page, server, shots, preset, shot):
    page.get_by_role("button", name=preset).click()
    page.get_by_role("button", name="Classify", exact=True).click()
    shown = rendered(page)
    chips = page.locator("#chip-list .chip-text").all_inner_texts()
    body = {"text": page.locator("#text").input_value(), "labels": chips}
    if template := page.locator("#template").input_value():
        body["hypothesis_template"] = template
    expected = api(server, body)
    assert [name for name, _ in shown] == expected["labels"]
    assert [score for _, score in shown] == [round(s, 4) for s in expected["scores"]]
    assert page.locator("#decision strong").inner_text() == expected["predicted"]
    meta = page.locator("#result-meta").inner_text()
    assert " ms" in meta and "cache: " in meta and expected["model"] in meta
    page.screenshot(path=str(shots / shot), full_page=True)
    assert not page.problems


def test_descriptions_and_examples_per_label(page, server, shots):
    """The panel's description and examples (one per line) become the label object the API is sent."""
    page.locator("#text").fill("I returned the jacket and still have not seen my money")
    box = page.locator("#label-input")
    for label in ("refund", "shipping"):
        box.fill(label)
        box.press("Enter")
    page.locator("#descriptions-box summary").click()
    page.locator("#desc-0").fill("money back for a return")
    page.get_by_label("Examples of refund, one per line").fill("where is my refund\n\n  I want my money back  ")
    page.get_by_label("Examples of shipping, one per line").fill("my parcel has not arrived")
    page.get_by_role("button", name="Classify", exact=True).click()
    shown = rendered(page)
    expected = api(server, {"text": "I returned the jacket and still have not seen my money", "labels": [
        {"name": "refund", "description": "money back for a return",
         "examples": ["where is my refund", "I want my money back"]},
        {"name": "shipping", "examples": ["my parcel has not arrived"]}]})  # fmt: skip
    assert [name for name, _ in shown] == expected["labels"]
    assert [score for _, score in shown] == [round(x, 4) for x in expected["scores"]]
    page.screenshot(path=str(shots / "ui-examples.png"), full_page=True)
    assert not page.problems


def test_a_4xx_shows_its_message(page, shots):
    page.get_by_role("button", name="English: news").click()
    page.locator("#threshold").fill("2")
    page.get_by_role("button", name="Classify", exact=True).click()
    error = page.locator("#classify-error")
    error.wait_for(state="visible")
    assert error.inner_text().startswith("400: threshold") and "less than or equal to 1" in error.inner_text()
    assert page.locator("#result").is_hidden()
    page.screenshot(path=str(shots / "ui-error.png"), full_page=True)


def test_label_set_picker(page, server):
    picker = page.locator("#label-set")
    picker.wait_for(state="visible")
    assert "support-intents" in picker.locator("option").all_inner_texts()[1]
    page.locator("#text").fill("The parcel was left at the wrong house")
    picker.select_option("support-intents")
    page.get_by_role("button", name="Classify", exact=True).click()
    expected = api(server, {"text": "The parcel was left at the wrong house", "label_set": "support-intents"})
    assert [name for name, _ in rendered(page)] == expected["labels"]


def test_a_hostile_label_is_text(page, shots):
    page.locator("#text").fill("Nothing to see here")
    box = page.locator("#label-input")
    for label in (HOSTILE, "harmless"):
        box.fill(label)
        box.press("Enter")
    assert page.locator("#chip-list .chip-text").all_inner_texts() == [HOSTILE, "harmless"]
    page.get_by_role("button", name="Classify", exact=True).click()
    assert HOSTILE in [name for name, _ in rendered(page)]
    page.locator("#descriptions-box summary").click()
    assert page.locator("#descriptions label").first.inner_text() == HOSTILE
    assert page.locator("main img").count() == 0  # nothing was parsed as HTML
    page.screenshot(path=str(shots / "ui-hostile-label.png"), full_page=True)
    assert not page.problems  # no alert() ran


def test_a_job_from_a_file_runs_to_completion(page, server, tmp_path, shots):
    texts = [f"Order {i}: the parcel has not arrived yet" if i % 2 else f"Match {i}: the team won" for i in range(40)]
    upload = tmp_path / "tickets.jsonl"
    upload.write_text("\n".join(json.dumps(t) for t in texts) + "\n")
    page.get_by_role("tab", name="Jobs").click()
    page.locator("#job-file").set_input_files(str(upload))
    page.locator("#job-labels").fill("sports, shipping")
    page.get_by_role("button", name="Submit job").click()
    page.wait_for_function("document.querySelector('#job-state').textContent === 'done'", timeout=120_000)
    assert page.locator("#job-counts").inner_text() == "40 / 40 items"
    assert page.locator("#job-progress").evaluate("p => p.value") == 1
    assert page.locator("#job-cancel").is_hidden()  # nothing left to cancel
    job_id = page.locator("#job-id").inner_text()
    link = page.locator("#job-download")
    assert link.is_visible() and link.get_attribute("href").endswith(f"/jobs/{job_id}/results?format=jsonl")
    with page.expect_download() as download:
        link.click()
    lines = Path(download.value.path()).read_text().splitlines()
    assert [json.loads(line)["index"] for line in lines] == list(range(40))
    assert json.loads(lines[1])["labels"][0] == "shipping" and json.loads(lines[0])["labels"][0] == "sports"
    page.screenshot(path=str(shots / "ui-job.png"), full_page=True)
    # a bad file gets the service's message
    bad = tmp_path / "bad.jsonl"
    bad.write_text('"fine"\n{not json\n')
    page.locator("#job-file").set_input_files(str(bad))
    page.get_by_role("button", name="Submit job").click()
    page.locator("#job-error").wait_for(state="visible")
    assert "line 2 is not JSON" in page.locator("#job-error").inner_text()


def test_the_cancel_button_cancels_and_the_job_stays_readable(page, server, tmp_path):
    upload = tmp_path / "many.jsonl"
    upload.write_text("\n".join(json.dumps(f"Ticket {i}: my parcel has not arrived yet") for i in range(3000)) + "\n")
    page.get_by_role("tab", name="Jobs").click()
    page.locator("#job-file").set_input_files(str(upload))
    page.locator("#job-labels").fill("sports, shipping")
    page.get_by_role("button", name="Submit job").click()
    page.locator("#job-cancel").wait_for(state="visible")
    page.locator("#job-cancel").click()
    page.wait_for_function("document.querySelector('#job-state').textContent === 'cancelled'", timeout=30_000)
    assert page.locator("#job-cancel").is_hidden()
    job = httpx.get(f"{server}/jobs/{page.locator('#job-id').inner_text()}", timeout=30)
    assert job.status_code == 200 and job.json()["state"] == "cancelled"  # cancelled, not deleted
    assert job.json()["done"] < 3000 and not page.problems


def test_keyboard_only(page, server):
    page.locator("#text").focus()
    page.keyboard.type("The striker scored twice")
    page.keyboard.press("Tab")  # the label-set picker, then the labels box
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "label-input"
    page.keyboard.type("sports,business,")
    page.keyboard.press("Control+Enter")
    assert [name for name, _ in rendered(page)][0] == "sports"
    page.locator("#tab-classify").focus()
    page.keyboard.press("ArrowRight")
    assert page.locator("#panel-decisions").is_visible()
    assert page.evaluate("document.activeElement.id") == "tab-decisions"
    page.keyboard.press("ArrowRight")
    assert page.locator("#panel-jobs").is_visible() and page.evaluate("document.activeElement.id") == "tab-jobs"


def test_the_decisions_tab_renders_the_apis_answers(page, server, shots):
    """The Decisions tab asks POST /v1/decisions (OpenAI's shape): its ready example (a choice, a predicate, a
    true/false choice, a score), plus a predicate without a statement (a refusal); every number on the page is
    the API's answer to the request the page sent."""
    page.get_by_role("tab", name="Decisions").click()
    page.get_by_role("button", name="Support ticket: team, urgency, anger").click()
    page.get_by_role("button", name="+ Predicate").click()
    with page.expect_request("**/v1/decisions") as sent:
        page.get_by_role("button", name="Decide").click()
    page.wait_for_selector("#answers li.answer")
    body = json.loads(sent.value.post_data)
    assert [q["type"] for q in body["questions"]] == ["choice", "predicate", "choice", "score", "predicate"]
    assert body["questions"][2]["choices"] == [{"value": True}, {"value": False}]  # booleans, as typed
    expected = httpx.post(f"{server}/v1/decisions", json=body, timeout=60).json()
    answers = page.locator("#answers li.answer")
    assert [answers.nth(i).get_attribute("data-type") for i in range(answers.count())] == [
        a["type"] for a in expected["answers"]
    ]
    assert expected["answers"][-1]["type"] == "refusal"
    team = expected["answers"][0]
    rows = answers.nth(0).locator(".ranking li")
    shown = [(rows.nth(i).locator(".name").inner_text(), rows.nth(i).locator(".score").inner_text())
             for i in range(rows.count())]  # fmt: skip
    assert shown == [(json.dumps(p["value"]), f"{p['probability']:.4f}") for p in team["probabilities"]]
    assert answers.nth(0).locator("li.chosen .name").inner_text() == json.dumps(team["choice"])
    predicate = answers.nth(1).locator(".score").inner_text()
    assert predicate == f"{expected['answers'][1]['probability']:.4f}"
    assert f"score {expected['answers'][3]['score']:.2f}" in answers.nth(3).locator("h3").inner_text()
    meta = page.locator("#decision-meta").inner_text()
    assert "tokens read" in meta and expected["model"] in meta
    page.screenshot(path=str(shots / "ui-decisions.png"), full_page=True)
    # a question the API refuses to take: its message and the field at fault
    page.locator("#q-options-0").fill("billing")
    page.get_by_role("button", name="Decide").click()
    error = page.locator("#decision-error")
    error.wait_for(state="visible")
    assert (
        error.inner_text().startswith("400: questions[0].choices")
        and "(param: questions[0].choices)" in error.inner_text()
    )
    assert page.locator("#decision-result").is_hidden() and not page.problems


def test_the_decisions_tab_sends_the_system_one_shape_too(page, server):
    """The same example sent to POST /v1/systemone: named questions (a predicate as a noul, choices as
    criteria), and the page shows the API's answers by name."""
    page.get_by_role("tab", name="Decisions").click()
    page.get_by_role("button", name="Support ticket: team, urgency, anger").click()
    page.select_option("#decision-shape", "systemone")
    with page.expect_request("**/v1/systemone") as sent:
        page.get_by_role("button", name="Decide").click()
    page.wait_for_selector("#answers li.answer")
    body = json.loads(sent.value.post_data)
    assert list(body["questions"]) == ["team", "double_charge", "urgent", "anger"]
    assert body["questions"]["double_charge"]["type"] == "noul"
    assert body["questions"]["anger"]["criteria"] == ["calm", "annoyed", "angry"]
    expected = httpx.post(f"{server}/v1/systemone", json=body, timeout=60).json()
    answers = page.locator("#answers li.answer")
    titles = [answers.nth(i).locator("h3").inner_text() for i in range(answers.count())]
    assert [t.split(":")[0] for t in titles] == list(expected["answers"])
    team = expected["answers"]["team"]
    assert titles[0].startswith(f"team: {json.dumps(team['choice'])}")
    noul = answers.nth(1).locator(".score").inner_text()
    assert noul == f"{expected['answers']['double_charge']['noul']:.4f}"
    assert f"score {expected['answers']['anger']['score']:.2f}" in titles[3]
    assert expected["model"] in page.locator("#decision-meta").inner_text() and not page.problems


def test_phone_width(browser, server, shots):
    context = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{server}/ui")
    page.get_by_role("button", name="中文：新闻").click()
    page.get_by_role("button", name="Classify", exact=True).click()
    rendered(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375  # no sideways scrolling
    page.screenshot(path=str(shots / "ui-phone.png"), full_page=True)
    context.close()


UI_KEY = "zsc-ui-test-key-5d0c2b"


@pytest.fixture(scope="module")
def locked_server(store_env, tmp_path_factory):
    log = tmp_path_factory.mktemp("ui") / "locked.log"
    with bento_server({**store_env, "ZSC_API_KEYS": UI_KEY}, log) as url:
        yield url


def test_with_an_api_key_the_page_asks_for_it_then_uses_it(browser, locked_server, tmp_path):
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    page.goto(f"{locked_server}/ui")  # the page itself is open; its calls need the key
    page.get_by_role("button", name="English: news").click()
    page.get_by_role("button", name="Classify", exact=True).click()
    error = page.locator("#classify-error")
    error.wait_for(state="visible")
    assert error.inner_text().startswith("401: ") and '"API key"' in error.inner_text()
    assert page.locator("#key-box").evaluate("d => d.open")
    page.locator("#api-key").fill(UI_KEY)
    page.locator("#api-key").dispatch_event("change")
    page.get_by_role("button", name="Classify", exact=True).click()
    assert rendered(page)[0][0] == "sports" and error.is_hidden()
    # a job and its download go through the key too (the link fetches with the header)
    upload = tmp_path / "two.jsonl"
    upload.write_text('"the team won the match"\n"my parcel is late"\n')
    page.get_by_role("tab", name="Jobs").click()
    page.locator("#job-file").set_input_files(str(upload))
    page.locator("#job-labels").fill("sports, shipping")
    page.get_by_role("button", name="Submit job").click()
    page.wait_for_function("document.querySelector('#job-state').textContent === 'done'", timeout=60_000)
    with page.expect_download() as download:
        page.locator("#job-download").click()
    lines = Path(download.value.path()).read_text().splitlines()
    assert [json.loads(line)["labels"][0] for line in lines] == ["sports", "shipping"]
    assert page.evaluate("sessionStorage.getItem('zsc-api-key')") == UI_KEY
    assert page.evaluate("localStorage.length") == 0, "the key is never kept beyond the tab"
    context.close()


def test_with_several_models_the_page_offers_a_picker(browser, multi_server):
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    page.goto(f"{multi_server}/ui")
    page.wait_for_selector("#model-row:not([hidden])")
    options = page.locator("#model option").all_inner_texts()
    assert len(options) == 2 and options[0].startswith("all-minilm-l6-v2 (the default)"), options
    assert options[1].startswith("multilingual-e5-small: embedding")
    page.get_by_role("button", name="中文：客服").click()
    page.locator("#model").select_option("multilingual-e5-small")
    page.get_by_role("button", name="Classify", exact=True).click()
    rendered(page)
    assert "multilingual-e5-small:" in page.locator("#result-meta").inner_text()
    page.locator("#model").select_option("")
    page.get_by_role("button", name="Classify", exact=True).click()
    page.wait_for_function("document.querySelector('#result-meta').textContent.includes('all-minilm-l6-v2')")
    assert page.locator("#job-model option").count() == 2
    context.close()
