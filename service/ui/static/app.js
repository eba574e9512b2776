// The /ui page: calls this service's own API (relative URLs, so it works behind a path prefix too).
// Everything shown from a request or an answer goes through textContent: nothing is parsed as HTML.
"use strict";

const api = (path) => new URL(`../${path}`, document.baseURI).toString();
const $ = (id) => document.getElementById(id);
const SEPARATORS = /[,，、\n]/;
const KEY_STORE = "zsc-api-key";

// Every call to the API goes through here: it adds the API key when one is entered (ZSC_API_KEYS), and
// keeps it in sessionStorage only (gone when the tab closes).
function call(path, options = {}) {
  const key = $("api-key").value.trim();
  const headers = { ...(options.headers || {}) };
  if (key) headers.Authorization = `Bearer ${key}`;
  return fetch(api(path), { ...options, headers });
}
$("api-key").value = sessionStorage.getItem(KEY_STORE) || "";
$("api-key").addEventListener("change", () => {
  sessionStorage.setItem(KEY_STORE, $("api-key").value.trim());
  loadLabelSets();
  loadModels();
});

// each example: a text, its labels and a hypothesis template ("": the model's default)
const PRESETS = {
  "en-support": { text: "I was charged twice for my order and still have not received a refund.",
    labels: ["billing", "shipping", "refund", "praise"], template: "The customer writes about {}." },
  "en-news": { text: "The striker scored twice as the home team won the cup final.",
    labels: ["sports", "business", "politics", "technology"], template: "This is a news article about {}." },
  "zh-support": { text: "我的快递三天了还没到，什么时候发货？", labels: ["物流", "退款", "表扬", "商品质量"], template: "" },
  "zh-news": { text: "央行宣布下调存款准备金率0.5个百分点", labels: ["财经", "体育", "科技", "娱乐"], template: "这是一条关于{}的新闻" },
};

// -- labels as chips ------------------------------------------------------------------------------
let labels = [];
const descriptions = new Map();
const examples = new Map(); // label -> example texts, one per line (embedding models)

function addLabels(raw) {
  for (const part of raw.split(SEPARATORS)) {
    const name = part.trim();
    if (name && !labels.includes(name)) labels.push(name);
  }
  renderChips();
}

function removeLabel(name) {
  labels = labels.filter((l) => l !== name);
  descriptions.delete(name);
  examples.delete(name);
  renderChips();
}

function renderChips() {
  const list = $("chip-list");
  list.replaceChildren();
  for (const name of labels) {
    const li = document.createElement("li");
    const text = document.createElement("span");
    text.className = "chip-text";
    text.textContent = name;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "×";
    remove.setAttribute("aria-label", `Remove label ${name}`);
    remove.addEventListener("click", () => { removeLabel(name); $("label-input").focus(); });
    li.append(text, remove);
    list.append(li);
  }
  renderDescriptions();
}

function renderDescriptions() {
  const box = $("descriptions");
  box.replaceChildren();
  labels.forEach((name, i) => {
    const row = document.createElement("div");
    row.className = "desc-row";
    const label = document.createElement("label");
    label.htmlFor = `desc-${i}`;
    label.textContent = name;
    const input = document.createElement("input");
    input.id = `desc-${i}`;
    input.value = descriptions.get(name) || "";
    input.placeholder = "e.g. payments, refunds and invoices";
    input.addEventListener("input", () => descriptions.set(name, input.value));
    const texts = document.createElement("textarea");
    texts.id = `examples-${i}`;
    texts.rows = 2;
    texts.value = examples.get(name) || "";
    texts.placeholder = "examples (optional), one per line: texts that belong to this label";
    texts.setAttribute("aria-label", `Examples of ${name}, one per line`);
    texts.addEventListener("input", () => examples.set(name, texts.value));
    row.append(label, input, texts);
    box.append(row);
  });
  if (!labels.length) box.textContent = "Add labels first.";
}

$("label-input").addEventListener("keydown", (e) => {
  const input = e.target;
  if (e.key === "Enter" || e.key === "," || e.key === "，") {
    if (input.value.trim()) {
      e.preventDefault();
      addLabels(input.value);
      input.value = "";
    } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      return; // Ctrl+Enter submits the form (below)
    } else if (e.key === "Enter") {
      e.preventDefault();
    }
  } else if (e.key === "Backspace" && !input.value && labels.length) {
    removeLabel(labels[labels.length - 1]);
  }
});
$("label-input").addEventListener("input", (e) => {
  if (SEPARATORS.test(e.target.value)) { // pasted "a, b, c" or an IME's comma
    addLabels(e.target.value);
    e.target.value = "";
  }
});
$("label-input").addEventListener("blur", (e) => {
  if (e.target.value.trim()) { addLabels(e.target.value); e.target.value = ""; }
});

// -- presets and label sets -----------------------------------------------------------------------
for (const button of document.querySelectorAll("[data-preset]")) {
  button.addEventListener("click", () => {
    const p = PRESETS[button.dataset.preset];
    $("text").value = p.text;
    $("template").value = p.template;
    labels = [];
    descriptions.clear();
    examples.clear();
    $("label-set").value = "";
    addLabels(p.labels.join(","));
    $("text").focus();
  });
}

async function loadLabelSets() {
  try {
    const response = await call("label_sets");
    if (!response.ok) return;
    const { label_sets: sets } = await response.json();
    if (!sets.length) return;
    for (const select of [$("label-set"), $("job-label-set")]) {
      for (const s of sets) {
        const option = document.createElement("option");
        option.value = s.name;
        option.textContent = `${s.name} (${s.labels.length} labels)${s.matches_model ? "" : " (tuned on another model)"}`;
        select.append(option);
      }
    }
    $("label-set-row").hidden = false;
    $("job-label-set-row").hidden = false;
  } catch (e) { /* no label sets: the picker stays hidden */ }
}

// several models in one replica (ZSC_MODELS): a picker, shown only when there is a choice
async function loadModels() {
  try {
    const response = await call("models");
    if (!response.ok) return;
    const { models } = await response.json();
    if (models.length < 2) return;
    const languages = (m) => m.languages.length
      ? m.languages.slice(0, 6).join(" ") + (m.languages.length > 6 ? " …" : "")
      : "languages not known";
    for (const select of [$("model"), $("job-model")]) {
      select.replaceChildren();  // the default first, as "" (the request then names no model)
      for (const m of models) {
        const option = document.createElement("option");
        option.value = m.default ? "" : m.name;
        option.textContent = `${m.name}${m.default ? " (the default)" : ""}: ${m.kind}, ${languages(m)}`;
        select.append(option);
      }
    }
    $("model-row").hidden = false;
    $("job-model-row").hidden = false;
  } catch (e) { /* one model: no picker */ }
}

// -- classify -------------------------------------------------------------------------------------
function describeError(status, body) {
  // our errors: {"error", "error_type"}; BentoML's validation errors: {"error", "detail": [{loc, msg}]}
  if (body && Array.isArray(body.detail) && body.detail.length) {
    return body.detail.map((d) => `${(d.loc || []).filter((p) => p !== "body").join(".")}: ${d.msg}`).join("\n");
  }
  if (status === 401) {
    $("key-box").open = true;
    const said = body && body.error ? `${body.error}. ` : "";
    return `${said}Enter the service's API key under "API key" at the top.`;
  }
  if (body && body.error) return body.error;
  return `HTTP ${status}`;
}

function showError(id, message) {
  const box = $(id);
  box.textContent = message;
  box.hidden = !message;
}

function requestBody() {
  const body = { text: $("text").value };
  const set = $("label-set").value;
  if (set) body.label_set = set;
  if (labels.length || !set) {
    body.labels = labels.map((name) => {
      const d = (descriptions.get(name) || "").trim();
      const e = (examples.get(name) || "").split("\n").map((x) => x.trim()).filter(Boolean);
      if (!d && !e.length) return name;
      const label = { name };
      if (d) label.description = d;
      if (e.length) label.examples = e;
      return label;
    });
  }
  const template = $("template").value.trim();
  if (template) body.hypothesis_template = template;
  if ($("multi-label").checked) body.multi_label = true;
  const threshold = $("threshold").value.trim();
  if (threshold !== "") body.threshold = Number(threshold);
  if ($("model").value) body.model = $("model").value;
  return body;
}

// POST a JSON body from a form's button: the button is off while it runs; an error goes to its box (the
// result hidden), in the words ``describe`` finds in the body; an answer to ``render(body, ms, cache)``.
async function postJSON(path, body, { button, errorBox, result, describe, render }) {
  showError(errorBox, "");
  button.disabled = true;
  const started = performance.now();
  try {
    const response = await call(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const ms = performance.now() - started;
    const answer = await response.json().catch(() => null);
    if (!response.ok) {
      $(result).hidden = true;
      showError(errorBox, `${response.status}: ${describe(response.status, answer)}`);
      return;
    }
    render(answer, ms, response.headers.get("X-Cache"));
  } catch (e) {
    showError(errorBox, `The service did not answer: ${e.message}`);
  } finally {
    button.disabled = false;
  }
}

async function classify(event) {
  event.preventDefault();
  const pending = $("label-input").value.trim();
  if (pending) { addLabels(pending); $("label-input").value = ""; }
  await postJSON("classify", requestBody(), {
    button: $("classify-button"), errorBox: "classify-error", result: "result", describe: describeError, render: renderResult,
  });
}

// One ranked row: the name, a bar as long as the score, the score.
function scoreRow(name, score, chosen) {
  const li = document.createElement("li");
  if (chosen) li.className = "chosen";
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = name;
  const bar = document.createElement("span");
  bar.className = "bar";
  bar.setAttribute("role", "presentation");
  const fill = document.createElement("span");
  fill.style.width = `${Math.max(0, Math.min(1, score)) * 100}%`;
  bar.append(fill);
  const value = document.createElement("span");
  value.className = "score";
  value.textContent = score.toFixed(4);
  li.append(label, bar, value);
  return li;
}

function renderResult(answer, ms, cache) {
  const chosen = new Set(Array.isArray(answer.predicted) ? answer.predicted : answer.predicted ? [answer.predicted] : []);
  const decision = $("decision");
  decision.replaceChildren();
  if (answer.multi_label) {
    decision.append(chosen.size ? "Labels that apply: " : "No label passes the threshold.");
  } else {
    decision.append(chosen.size ? "Decision: " : "Abstained: the best score is under the threshold.");
  }
  if (chosen.size) {
    const strong = document.createElement("strong");
    strong.textContent = [...chosen].join(", ");
    decision.append(strong);
  }
  const list = $("ranking");
  list.replaceChildren();
  answer.labels.forEach((name, i) => {
    const li = scoreRow(name, answer.scores[i], chosen.has(name));
    li.dataset.label = name;
    list.append(li);
  });
  const warnings = $("warnings");
  warnings.replaceChildren();
  for (const w of answer.warnings || []) {
    const li = document.createElement("li");
    li.textContent = w.message;
    warnings.append(li);
  }
  const extra = [answer.truncated ? "text truncated" : "", answer.windows > 1 ? `${answer.windows} windows` : ""];
  $("result-meta").textContent = [`${ms.toFixed(0)} ms`, `cache: ${cache || "?"}`, answer.model, ...extra]
    .filter(Boolean).join(" · ");
  $("result").hidden = false;
}

$("classify-form").addEventListener("submit", classify);
$("classify-form").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("classify-form").requestSubmit();
});

// -- jobs -----------------------------------------------------------------------------------------
let polling = null;

async function submitJob(event) {
  event.preventDefault();
  showError("job-error", "");
  const file = $("job-file").files[0];
  if (!file) { showError("job-error", "Choose a .jsonl or .csv file first."); return; }
  const form = new FormData();
  form.append("file", file, file.name);
  const jobLabels = $("job-labels").value.split(SEPARATORS).map((l) => l.trim()).filter(Boolean);
  if (jobLabels.length) form.append("labels", JSON.stringify(jobLabels));
  if ($("job-label-set").value) form.append("label_set", $("job-label-set").value);
  if ($("job-model").value) form.append("model", $("job-model").value);
  $("job-submit").disabled = true;
  try {
    const response = await call("jobs", { method: "POST", body: form });
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      showError("job-error", `${response.status}: ${describeError(response.status, body)}`);
      return;
    }
    renderJob(body);
    clearInterval(polling);
    polling = setInterval(() => pollJob(body.id), 1000);
  } catch (e) {
    showError("job-error", `The service did not answer: ${e.message}`);
  } finally {
    $("job-submit").disabled = false;
  }
}

async function pollJob(id) {
  try {
    const response = await call(`jobs/${encodeURIComponent(id)}`);
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      clearInterval(polling);
      showError("job-error", `${response.status}: ${describeError(response.status, body)}`);
      return;
    }
    renderJob(body);
    if (!["queued", "running"].includes(body.state)) clearInterval(polling);
  } catch (e) { /* a missed poll: the next one retries */ }
}

function renderJob(job) {
  $("job").hidden = false;
  $("job-id").textContent = job.id;
  $("job-state").textContent = job.state;
  $("job-counts").textContent = `${job.done} / ${job.total} items${job.errors ? `, ${job.errors} with errors` : ""}`;
  $("job-progress").value = job.progress;
  $("job-meta").textContent = [
    job.items_per_s ? `${job.items_per_s} items/s` : "",
    job.elapsed_s ? `${job.elapsed_s.toFixed(1)} s` : "",
    `store: ${job.backend}`,
  ].filter(Boolean).join(" · ");
  const active = ["queued", "running"].includes(job.state);
  $("job-cancel").hidden = !active;
  $("job-cancel").onclick = async () => {
    await call(`jobs/${encodeURIComponent(job.id)}/cancel`, { method: "POST" });  // DELETE would delete it
    pollJob(job.id);
  };
  const download = $("job-download");
  download.hidden = job.done === 0;
  const results = `jobs/${encodeURIComponent(job.id)}/results?format=jsonl`;
  download.href = api(results);
  download.download = `job-${job.id}.jsonl`;
  // a link cannot send the key: with one, fetch the results and hand the browser the bytes
  download.onclick = async (event) => {
    if (!$("api-key").value.trim()) return;
    event.preventDefault();
    const response = await call(results);
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      showError("job-error", `${response.status}: ${describeError(response.status, body)}`);
      return;
    }
    const url = URL.createObjectURL(await response.blob());
    const a = document.createElement("a");
    a.href = url;
    a.download = download.download;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
}

$("job-form").addEventListener("submit", submitJob);

// -- tabs (arrow keys move between them, as the ARIA tabs pattern has it) -------------------------
const tabs = [$("tab-classify"), $("tab-decisions"), $("tab-jobs")];
function select(tab) {
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  }
  tab.focus();
}
tabs.forEach((tab, i) => {
  tab.addEventListener("click", () => select(tab));
  tab.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      select(tabs[(i + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length]);
    }
  });
});

renderChips();
loadLabelSets();
loadModels();
