// The Decisions tab: questions about one input, sent to POST /v1/decisions (OpenAI's Decisions API shape) or
// POST /v1/systemone (the System One shape: named noul, choice and score questions, answers by name).
// Uses app.js's helpers ($, call, postJSON, scoreRow). Everything shown goes through textContent.
"use strict";

const DECISION_PRESETS = {
  "en-support": {
    input: "I was charged twice for my order and nobody answers my emails. Fix this today!",
    questions: [
      { type: "choice", name: "team", instructions: "Which team should handle this message?",
        options: "billing: payments, refunds and invoices\nshipping: delivery and parcels\nproduct: how the product works" },
      { type: "predicate", name: "double_charge", instructions: "The customer was charged twice.", options: "" },
      { type: "choice", name: "urgent", instructions: "The customer needs an answer today.", options: "true\nfalse" },
      { type: "score", name: "anger", instructions: "How upset is the customer?", options: "calm\nannoyed\nangry" },
    ],
  },
  "zh-news": {
    input: "央行宣布下调存款准备金率0.5个百分点，股市应声大涨",
    questions: [
      { type: "choice", name: "类别", instructions: "这条新闻属于哪个类别？", options: "财经\n体育\n科技\n娱乐" },
      { type: "predicate", name: "利好", instructions: "这条新闻对股市是利好。", options: "" },
    ],
  },
};
const OPTIONS_HINT = {
  choice: "one choice per line, optionally 'value: description'; a line true or false is a boolean value",
  score: "one level per line, lowest first, optionally 'label: description'",
};

let questions = [];

function addQuestion(q) {
  questions.push({ type: q.type, name: q.name || "", instructions: q.instructions || "", options: q.options || "" });
  renderQuestions();
}

function field(labelText, id, value, onInput, multiline = false) {
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = labelText;
  const input = document.createElement(multiline ? "textarea" : "input");
  input.id = id;
  if (multiline) input.rows = 3;
  input.value = value;
  input.addEventListener("input", () => onInput(input.value));
  return [label, input];
}

function renderQuestions() {
  const list = $("questions");
  list.replaceChildren();
  questions.forEach((q, i) => {
    const li = document.createElement("li");
    li.className = "question";
    const head = document.createElement("div");
    head.className = "question-head";
    const title = document.createElement("strong");
    title.textContent = `${i + 1}. ${q.type}`;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Remove";
    remove.setAttribute("aria-label", `Remove question ${i + 1}`);
    remove.addEventListener("click", () => { questions.splice(i, 1); renderQuestions(); });
    head.append(title, remove);
    li.append(head);
    li.append(...field("Name (optional)", `q-name-${i}`, q.name, (v) => { q.name = v; }));
    const what = q.type === "predicate" ? "Statement" : "Instructions";
    li.append(...field(what, `q-instructions-${i}`, q.instructions, (v) => { q.instructions = v; }));
    if (q.type !== "predicate") {
      const [label, input] = field(q.type === "choice" ? "Choices" : "Levels", `q-options-${i}`, q.options,
        (v) => { q.options = v; }, true);
      input.placeholder = OPTIONS_HINT[q.type];
      li.append(label, input);
    }
    list.append(li);
  });
}

function option(line, key) {
  const at = line.indexOf(":");
  const head = (at > 0 ? line.slice(0, at) : line).trim();
  const description = at > 0 ? line.slice(at + 1).trim() : "";
  const value = key === "value" && (head === "true" || head === "false") ? head === "true" : head;
  return description ? { [key]: value, description } : { [key]: value };
}

function decisionBody() {
  const body = { model: $("decision-model").value, input: $("decision-input").value, questions: [] };
  for (const q of questions) {
    const question = { type: q.type, instructions: q.instructions };
    if (q.name.trim()) question.name = q.name.trim();
    const lines = q.options.split("\n").map((l) => l.trim()).filter(Boolean);
    if (q.type === "choice") question.choices = lines.map((l) => option(l, "value"));
    if (q.type === "score") question.levels = lines.map((l) => option(l, "label"));
    body.questions.push(question);
  }
  return body;
}

// The same questions in the System One shape: a predicate is a noul; a choice's criteria map each option to
// its description (or null); a score's criteria are its levels, lowest first; every question is named.
function systemOneBody() {
  const body = { model: $("decision-model").value, state: $("decision-input").value, questions: {} };
  questions.forEach((q, i) => {
    const question = { type: q.type === "predicate" ? "noul" : q.type, instructions: q.instructions };
    const lines = q.options.split("\n").map((l) => l.trim()).filter(Boolean).map((l) => option(l, "value"));
    if (q.type === "choice") {
      question.criteria = Object.fromEntries(lines.map((o) => [String(o.value), o.description || null]));
    }
    if (q.type === "score") {
      question.criteria = lines.map((o) => (o.description ? `${o.value}: ${o.description}` : String(o.value)));
    }
    body.questions[q.name.trim() || `question ${i + 1}`] = question;
  });
  return body;
}

// A System One answer as the page shows OpenAI's: the same rows, named by its key.
function asDecision(answered) {
  const answers = Object.entries(answered.answers).map(([name, a]) => {
    const rows = Object.entries(a.probabilities || {});
    if (a.type === "noul") return { type: "predicate", name, probability: a.noul };
    if (a.type === "choice") {
      return { ...a, name, probabilities: rows.map(([value, probability]) => ({ value, probability })) };
    }
    const levels = rows.map(([value, probability]) => ({ value, label: a.legend[value], probability }));
    return { ...a, name, probabilities: levels };
  });
  return { answers, model: answered.model, usage: answered.usage };
}

function describeOpenAIError(status, body) {
  if (status === 401) $("key-box").open = true;
  const error = body && body.error;
  if (error && typeof error === "object") return error.message + (error.param ? ` (param: ${error.param})` : "");
  return `HTTP ${status}`;
}

async function decide(event) {
  event.preventDefault();
  const systemOne = $("decision-shape").value === "systemone";
  await postJSON(systemOne ? "v1/systemone" : "v1/decisions", systemOne ? systemOneBody() : decisionBody(), {
    button: $("decide-button"), errorBox: "decision-error", result: "decision-result",
    describe: describeOpenAIError,
    render: (answer, ms, cache) => renderAnswers(systemOne ? asDecision(answer) : answer, ms, cache),
  });
}

function bars(rows, chosen) {
  const list = document.createElement("ol");
  list.className = "ranking";
  for (const [name, probability] of rows) list.append(scoreRow(name, probability, name === chosen));
  return list;
}

function renderAnswers(decision, ms, cache) {
  const list = $("answers");
  list.replaceChildren();
  decision.answers.forEach((a, i) => {
    const li = document.createElement("li");
    li.className = `answer ${a.type}`;
    li.dataset.type = a.type;
    const title = document.createElement("h3");
    const name = a.name === null ? `question ${i + 1}` : a.name;
    const text = JSON.stringify;
    if (a.type === "choice") {
      title.textContent = `${name}: ${text(a.choice)} (confidence ${a.confidence.toFixed(2)})`;
      li.append(title, bars(a.probabilities.map((p) => [text(p.value), p.probability]), text(a.choice)));
    } else if (a.type === "predicate") {
      title.textContent = `${name}: probability ${a.probability.toFixed(4)}`;
      li.append(title, bars([["holds", a.probability]], null));
    } else if (a.type === "score") {
      title.textContent = `${name}: score ${a.score.toFixed(2)} (confidence ${a.confidence.toFixed(2)})`;
      li.append(title, bars(a.probabilities.map((p) => [`${p.value}: ${p.label}`, p.probability]), null));
    } else {
      title.textContent = `${name}: refused (its instructions show an image, or a predicate has no statement)`;
      li.append(title);
    }
    list.append(li);
  });
  const usage = decision.usage;
  const cached = usage.input_tokens_details ? ` (${usage.input_tokens_details.cached_tokens} from the cache)` : "";
  $("decision-meta").textContent = [
    `${ms.toFixed(0)} ms`,
    `cache: ${cache || "?"}`,
    decision.model,
    `${usage.input_tokens} tokens read${cached}`,
  ].join(" · ");
  $("decision-result").hidden = false;
}

async function loadDecisionModels() {
  const select = $("decision-model");
  try {
    const response = await call("v1/models");
    if (!response.ok) { select.replaceChildren(new Option("(enter the API key to list the models)", "")); return; }
    const { data } = await response.json();
    select.replaceChildren(...data.map((m) => new Option(m.id, m.id)));
  } catch (e) { select.replaceChildren(new Option("(no model list)", "")); }
}

function loadDecisionPreset(name, focus = true) {
  const p = DECISION_PRESETS[name];
  $("decision-input").value = p.input;
  questions = [];
  p.questions.forEach(addQuestion);
  if (focus) $("decision-input").focus();
}

for (const button of document.querySelectorAll("[data-decision-preset]")) {
  button.addEventListener("click", () => loadDecisionPreset(button.dataset.decisionPreset));
}
for (const type of ["choice", "predicate", "score"]) {
  $(`add-${type}`).addEventListener("click", () => addQuestion({ type }));
}
$("decision-form").addEventListener("submit", decide);
$("decision-form").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("decision-form").requestSubmit();
});
$("api-key").addEventListener("change", loadDecisionModels);
loadDecisionPreset("en-support", false);  // a ready example: Decide answers it at once
loadDecisionModels();
