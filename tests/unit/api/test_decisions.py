"""The Decisions API's request and answer models against the openai SDK 3.57 contract, and the rules that
turn a request into what the model reads. The request bodies below are what the SDK and langchain-openai
put on the wire (captured from them, /work/notes/decisions-sdk.md)."""

from __future__ import annotations

import copy
import json
from dataclasses import replace

import pytest
from pydantic import ValidationError

from service.api.decisions.adapters import (
    InputNotReadable,
    ask,
    input_text,
    instructions_text,
    is_yes_no,
    refusal_reason,
    text_problem,
    worded_as_answers,
    wordings,
)
from service.api.decisions.protocol import (
    MAX_CHOICES,
    MAX_LEVELS,
    MAX_QUESTIONS,
    ChoiceAnswer,
    ChoiceProbability,
    ChoiceQuestion,
    Decision,
    DecisionCreateRequest,
    ModelList,
    ModelObject,
    PredicateAnswer,
    RefusalAnswer,
    ScoreAnswer,
    ScoreProbability,
    Usage,
)
from service.api.limits import RequestLimits
from service.api.questions import Wording, pairs_problem, qa_hypothesis
from service.config import Settings
from service.errors import InvalidRequest
from service.http.decisions import parse as parse_body
from service.http.decisions_errors import envelope_fields, param_path

pytestmark = pytest.mark.unit

# what client.decisions.create(...) sent (openai 3.57, captured), prompt_cache_key=None included
SDK_BODY = {
    "model": "multilingual-e5-small",
    "input": "My card was charged twice for one order",
    "questions": [
        {
            "type": "choice",
            "name": "c",
            "instructions": "Which team?",
            "choices": [{"value": True}, {"value": "true", "description": "the string"}],
        },
        {"type": "predicate", "instructions": "The customer was charged twice."},
        {
            "type": "score",
            "name": "s",
            "instructions": "How upset?",
            "levels": [{"label": "calm"}, {"label": "annoyed", "description": "a bit"}, {"label": "angry"}],
        },
    ],
    "prompt_cache_key": None,
}

# what langchain-openai's OpenAIDecisions sent for a conversation with system and AI messages (captured)
LANGCHAIN_BODY = {
    "model": "gpt-6-luna",
    "input": [
        {
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": '[{"role": "system", "content": "You grade tickets"}, {"role": "user", "content": '
                    '"My card was charged twice"}, {"role": "assistant", "content": "Refunded."}]',
                }
            ],
        }
    ],
    "questions": [{"type": "predicate", "name": "p", "instructions": "Is it urgent?"}],
}


def parse(body: dict) -> DecisionCreateRequest:
    return DecisionCreateRequest.model_validate_json(json.dumps(body))


def rejected(body: dict) -> dict:
    """The first problem as OpenAI's envelope carries it (the route's parse): {"param", "message"}."""
    with pytest.raises(InvalidRequest) as info:
        parse_body(json.dumps(body).encode())
    return {"param": info.value.param, "message": str(info.value)}


def limit_problem(request, max_pairs: int, max_text_chars: int = 10_000, cohort: int = 0):
    """What ``Decisions.decide`` checks before anything runs: the texts, then the pairs the questions cost
    (``cohort``: the statements of a t-norm calibration)."""
    limits = replace(
        RequestLimits.from_settings(Settings()), max_pairs_per_request=max_pairs, max_text_chars=max_text_chars
    )
    plan = ask(request, "m", "embedding", [f"statement {i}" for i in range(cohort)])
    return text_problem(request, limits) or pairs_problem(plan.pairs, limits)


def with_question(**fields) -> dict:
    body = copy.deepcopy(SDK_BODY)
    body["questions"] = [{**SDK_BODY["questions"][0], **fields}]
    return body


# -- the request ------------------------------------------------------------------------------------------
def test_what_the_sdk_and_langchain_send_is_accepted():
    request = parse(SDK_BODY)
    assert [q.type for q in request.questions] == ["choice", "predicate", "score"]
    assert request.questions[1].name is None and request.prompt_cache_key is None
    parse(LANGCHAIN_BODY)


def test_what_the_sdk_tool_runner_sends_is_accepted():
    body = {
        "model": "m",
        "input": [
            {"role": "user", "content": "Book the cheapest flight"},
            {"role": "user", "content": [{"type": "input_text", "text": "Flights: A 120 EUR, B 90 EUR"}]},
        ],
        "questions": [
            {
                "type": "choice",
                "name": "next_action",
                "instructions": "Select the supplied action that best advances the task, or done if the task is "
                "complete.",
                "choices": [{"value": "book_b", "description": "Book flight B"}, {"value": "done", "description": "x"}],
            }
        ],
        "safety_identifier": "u-1",
    }
    assert input_text(parse(body).input) == "Book the cheapest flight\nFlights: A 120 EUR, B 90 EUR"


def test_choice_values_keep_their_type():
    request = parse(SDK_BODY)
    values = [c.value for c in request.questions[0].choices]
    assert values == [True, "true"] and type(values[0]) is bool and type(values[1]) is str
    # a Python dict (not JSON) too: no coercion in either direction
    direct = DecisionCreateRequest.model_validate(SDK_BODY)
    assert [type(c.value) for c in direct.questions[0].choices] == [bool, str]


@pytest.mark.parametrize("value", [1, 0, 1.5, None, ["a"], {"a": 1}])
def test_a_choice_value_is_a_string_or_a_boolean(value):
    error = rejected(with_question(choices=[{"value": value}, {"value": "b"}]))
    assert error["param"] == "questions[0].choices[0].value"
    assert "a string or a boolean" in error["message"]


def test_choices_are_unique_by_type_and_value():
    assert "appears twice" in rejected(with_question(choices=[{"value": True}, {"value": True}]))["message"]
    error = rejected(with_question(choices=[{"value": "a"}, {"value": "b"}, {"value": "a", "description": "x"}]))
    assert error["param"] == "questions[0].choices" and "choice 2" in error["message"]
    parse(with_question(choices=[{"value": False}, {"value": "false"}]))  # a bool and a string: two choices


def test_openai_bounds():
    parse(with_question(choices=[{"value": str(i)} for i in range(MAX_CHOICES)]))
    assert "2 to 255" in rejected(with_question(choices=[{"value": str(i)} for i in range(MAX_CHOICES + 1)]))["message"]
    assert "2 to 255" in rejected(with_question(choices=[{"value": "only"}]))["message"]
    score = SDK_BODY["questions"][2]
    parse({**SDK_BODY, "questions": [{**score, "levels": [{"label": str(i)} for i in range(MAX_LEVELS)]}]})
    for n in (1, MAX_LEVELS + 1):
        error = rejected({**SDK_BODY, "questions": [{**score, "levels": [{"label": str(i)} for i in range(n)]}]})
        assert error["param"] == "questions[0].levels" and "2 to 10" in error["message"]
    predicate = SDK_BODY["questions"][1]
    parse({**SDK_BODY, "questions": [predicate] * MAX_QUESTIONS})
    for questions in ([], [predicate] * (MAX_QUESTIONS + 1)):
        error = rejected({**SDK_BODY, "questions": questions})
        assert error["param"] == "questions" and "1 to 400" in error["message"]
    parse({**SDK_BODY, "safety_identifier": "x" * 128})
    assert rejected({**SDK_BODY, "safety_identifier": "x" * 129})["param"] == "safety_identifier"


def test_unknown_fields_are_refused_where_the_sdk_sends_none():
    assert rejected({**SDK_BODY, "stream": True}) == {
        "message": "stream: Extra inputs are not permitted",
        "param": "stream",
    }
    assert rejected(with_question(weight=2))["param"] == "questions[0].weight"
    bad = with_question(choices=[{"value": "a", "score": 1}, {"value": "b"}])
    assert rejected(bad)["param"] == "questions[0].choices[0].score"


def test_every_optional_field_the_sdk_types_is_accepted():
    breakpoint_ = {"mode": "explicit"}
    body = {
        **SDK_BODY,
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "be strict"}]},
            {"role": "system", "content": "you judge tickets"},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "hello", "prompt_cache_breakpoint": breakpoint_},
                    {"type": "input_json", "data": [{"order": 1}, {"order": 2}]},
                ],
            },
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "lookup",
                "arguments": "{}",
                "id": "fc_1",
                "namespace": "crm",
                "status": "completed",
            },
            {"type": "function_call_output", "call_id": "c1", "output": "found", "id": None, "status": None},
            {"type": "custom_tool_call", "call_id": "c2", "name": "sql", "input": "select 1", "status": "in_progress"},
            {"type": "custom_tool_call_output", "call_id": "c2", "output": [{"type": "input_text", "text": "1"}]},
            {
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok"}, {"type": "refusal", "refusal": "no"}],
                "phase": "final_answer",
            },
        ],
        "prompt_cache_key": "tenant-7",
        "prompt_cache_options": {"mode": "explicit", "ttl": "30m"},
        "safety_identifier": None,
    }
    assert parse(body).prompt_cache_options.mode == "explicit"
    assert parse({**SDK_BODY, "prompt_cache_options": None}).prompt_cache_options is None


def test_null_only_where_the_sdk_types_allow_it():
    assert rejected(with_question(name=None))["param"] == "questions[0].name"
    error = rejected(with_question(choices=[{"value": "a", "description": None}, {"value": "b"}]))
    assert error["param"] == "questions[0].choices[0].description" and "leave it out" in error["message"]
    assert (
        rejected({**SDK_BODY, "input": [{"role": "user", "content": "hi", "type": None}]})["param"] == "input[0].type"
    )
    assert rejected({**SDK_BODY, "prompt_cache_options": {"ttl": "1h"}})["param"] == "prompt_cache_options.ttl"


def test_items_are_told_apart_by_role_then_type():
    error = rejected({**SDK_BODY, "input": [{"role": "boss", "content": "hi"}]})
    assert error["param"] == "input[0]" and "role user, developer, system or assistant" in error["message"]
    # a developer message takes text parts only; an assistant message output_text and refusal parts
    bad = {**SDK_BODY, "input": [{"role": "developer", "content": [{"type": "input_json", "data": {}}]}]}
    assert rejected(bad)["param"].startswith("input[0].content[0]")
    bad = {**SDK_BODY, "input": [{"role": "assistant", "content": [{"type": "input_text", "text": "x"}]}]}
    assert rejected(bad)["param"].startswith("input[0].content[0]")


def test_an_image_in_the_input_is_a_400_naming_input():
    body = {
        **SDK_BODY,
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "what is this?"},
                    {"type": "input_image", "image_url": "data:image/png;base64,AA"},
                ],
            }
        ],
    }
    error = rejected(body)
    assert error["param"] == "input"
    assert "input[0].content[1] is an image" in error["message"] and "text only" in error["message"]
    body = {
        **SDK_BODY,
        "input": [
            {"type": "function_call", "call_id": "c", "name": "shot", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "c",
                "output": [{"type": "input_image", "image_url": "https://x"}],
            },
        ],
    }
    assert "input[1].output[0] is an image" in rejected(body)["message"]


def test_json_parts_are_bounded_as_openai_bounds_them():
    deep: dict = {}
    node = deep
    for _ in range(32):
        node["a"] = {}
        node = node["a"]
    body = {**SDK_BODY, "input": [{"role": "user", "content": [{"type": "input_json", "data": deep}]}]}
    assert "33 levels" in rejected(body)["message"]
    many = {"k": list(range(10_000))}
    body = {**SDK_BODY, "input": [{"role": "user", "content": [{"type": "input_json", "data": many}]}]}
    assert "10002 values" in rejected(body)["message"]
    big = {"k": "x" * (256 * 1024)}
    body = {**SDK_BODY, "input": [{"role": "user", "content": [{"type": "input_json", "data": big}]}]}
    assert "256 KiB" in rejected(body)["message"]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("", "input is empty"),
        ("  \n", "input is empty"),
        ([], "empty list"),
        ([{"role": "system", "content": "you judge"}], "no text to decide about"),
        ([{"type": "function_call_output", "call_id": "nope", "output": "x"}], "must follow its call"),
    ],
)
def test_an_input_with_nothing_to_read_is_refused(value, says):
    error = rejected({**SDK_BODY, "input": value})
    assert error["param"] == "input" and says in error["message"]


def test_model_is_named():
    assert rejected({**SDK_BODY, "model": " "})["param"] == "model"
    assert rejected({k: v for k, v in SDK_BODY.items() if k != "model"})["message"] == "model: Field required"


# -- what the model reads ------------------------------------------------------------------------------------
def test_the_input_text_rule():
    body = {
        **SDK_BODY,
        "input": [
            {"role": "system", "content": "You grade support tickets strictly."},
            {"role": "developer", "content": [{"type": "input_text", "text": "Policy: refunds within 30 days"}]},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "我的卡被扣了两次款"},
                    {"type": "input_json", "data": {"订单": 123, "amount": 9.5}},
                ],
            },
            {"type": "function_call", "call_id": "c1", "name": "refund", "arguments": '{"order": 123}'},
            {"type": "function_call_output", "call_id": "c1", "output": "refunded"},
            {"role": "assistant", "content": "I refunded you."},
        ],
    }
    assert input_text(parse(body).input) == (
        '我的卡被扣了两次款\n{"订单": 123, "amount": 9.5}\nrefund({"order": 123})\nrefunded\nI refunded you.'
    )
    assert input_text(parse(SDK_BODY).input) == SDK_BODY["input"]  # a string: exactly what /classify reads
    # one user message with the same text reads the same as the string
    one = {**SDK_BODY, "input": [{"role": "user", "content": SDK_BODY["input"]}]}
    assert input_text(parse(one).input) == SDK_BODY["input"]


def test_input_text_of_an_unvalidated_list_says_so():
    with pytest.raises(InputNotReadable, match="validate the request first"):
        input_text([{"role": "user", "content": "x"}])


def test_question_text_and_refusals():
    body = {
        **SDK_BODY,
        "questions": [
            {
                "type": "predicate",
                "instructions": [
                    {"type": "input_text", "text": "The order"},
                    {"type": "input_json", "data": {"id": 7}},
                ],
            },
            {"type": "predicate", "name": "img", "instructions": [{"type": "input_image", "image_url": "https://x"}]},
            {"type": "predicate", "instructions": "   "},
            {"type": "choice", "instructions": "", "choices": [{"value": "a"}, {"value": "b"}]},
            {"type": "choice", "instructions": "", "choices": [{"value": True}, {"value": False}]},
        ],
    }
    questions = parse(body).questions
    assert instructions_text(questions[0].instructions) == 'The order\n{"id": 7}'
    assert instructions_text(questions[1].instructions) is None
    reasons = [refusal_reason(q) for q in questions]
    assert reasons[0] is None and reasons[3] is None  # a choice's values carry it without instructions
    assert "image" in reasons[1] and "statement" in reasons[2] and "true/false" in reasons[4]


def test_how_each_question_is_worded_for_the_model():
    choice, predicate, score = parse(SDK_BODY).questions

    def qa(answer: str, question: str) -> str:
        return qa_hypothesis(question, answer, chinese=False)

    # embedding models: every choice answers the instructions; a value and its description as an ensemble
    assert wordings(choice, "embedding") == [
        Wording((qa("true", "Which team?"),), whole=True),  # a boolean as JSON writes it
        Wording((qa("true", "Which team?"), qa("the string", "Which team?")), whole=True),
    ]
    assert wordings(predicate, "embedding") == [Wording(("The customer was charged twice.",), whole=True)]
    # levels without the instructions: one scale's levels differ in a word, the shared question drowns it
    assert wordings(score, "embedding") == [
        Wording(("calm",), whole=True),
        Wording(("annoyed", "a bit"), whole=True),
        Wording(("angry",), whole=True),
    ]
    assert [worded_as_answers(q, "embedding") for q in (choice, predicate, score)] == [True, False, False]
    assert not worded_as_answers(choice, "nli")
    # NLI models: as /classify reads label objects, in the model's template; a statement stays whole
    assert wordings(choice, "nli") == [Wording(("true",), whole=False), Wording(("true", "the string"), whole=False)]
    assert wordings(predicate, "nli") == [Wording(("The customer was charged twice.",), whole=True)]


def test_the_question_answer_wrapper_follows_the_options_language():
    assert qa_hypothesis("What is this about?", "体育", chinese=True) == "问：What is this about?\n答：体育"
    assert (
        qa_hypothesis("What is this about?", "sports", chinese=False) == "Question: What is this about?\nAnswer: sports"
    )
    zh = parse(with_question(instructions="What is this news about?", choices=[{"value": "体育"}, {"value": "财经"}]))
    assert wordings(zh.questions[0], "embedding")[0].phrasings == ("问：What is this news about?\n答：体育",)
    bare = parse(with_question(instructions=" ", choices=[{"value": "a"}, {"value": "b", "description": "bee"}]))
    assert wordings(bare.questions[0], "embedding") == [Wording(("a",), True), Wording(("b", "bee"), True)]


def test_a_true_false_choice_without_descriptions_is_a_predicate_on_its_instructions():
    yes_no = parse(with_question(instructions="Is it urgent?", choices=[{"value": False}, {"value": True}]))
    assert is_yes_no(yes_no.questions[0])
    assert wordings(yes_no.questions[0], "embedding") == [Wording(("Is it urgent?",), whole=True)]
    described = parse(with_question(choices=[{"value": False, "description": "calm"}, {"value": True}]))
    assert not is_yes_no(described.questions[0])
    assert not is_yes_no(parse(with_question(choices=[{"value": "true"}, {"value": "false"}])).questions[0])


def test_the_replicas_limits():
    request = parse(SDK_BODY)
    assert ask(request, "m", "embedding").pairs == 8  # choice 1 + 2, predicate 1, score 1 + 2 + 1
    cohort = [f"s{i}" for i in range(32)]
    assert ask(request, "m", "embedding", cohort).pairs == 40  # a predicate: the t-norm cohort once
    assert ask(parse({**SDK_BODY, "questions": [SDK_BODY["questions"][0]]}), "m", "embedding", cohort).pairs == 3
    assert limit_problem(request, max_pairs=8) is None
    param, message = limit_problem(request, max_pairs=7)
    assert param == "questions" and "8 (input, phrasing) pairs" in message and "up to 7" in message
    assert limit_problem(request, max_pairs=39, cohort=32)[0] == "questions"
    param, message = limit_problem(request, max_pairs=100, max_text_chars=10)
    assert param == "input" and "39 characters" in message
    # a question the service refuses costs nothing
    refused = {
        **SDK_BODY,
        "questions": [
            *SDK_BODY["questions"],
            {"type": "predicate", "instructions": [{"type": "input_image", "image_url": "https://x"}]},
        ],
    }
    assert limit_problem(parse(refused), max_pairs=8) is None


def test_param_paths_are_openais():
    assert param_path(["questions", 2, "choice", "choices", 0, "value"]) == "questions[2].choices[0].value"
    assert param_path(["input", 0, "assistant", "content", 1, "refusal", "refusal"]) == "input[0].content[1].refusal"
    assert param_path([]) is None
    error = rejected({**SDK_BODY, "questions": [{"type": "score", "instructions": 3, "levels": [{"label": ""}]}]})
    assert "(and 1 more problem)" in error["message"]


# -- the answer -------------------------------------------------------------------------------------------------
def test_the_answer_is_openais_shape():
    decision = Decision(
        model="multilingual-e5-small:abc",
        answers=[
            ChoiceAnswer(
                name=None,
                choice=True,
                confidence=0.2,
                probabilities=[
                    ChoiceProbability(value=True, probability=0.6),
                    ChoiceProbability(value="true", probability=0.4),
                ],
            ),
            PredicateAnswer(name="p", probability=0.8),
            ScoreAnswer(
                name="s",
                score=0.5,
                confidence=0.1,
                probabilities=[
                    ScoreProbability(value=0, label="calm", probability=0.5),
                    ScoreProbability(value=1, label="angry", probability=0.5),
                ],
            ),
            RefusalAnswer(name=None),
        ],
        usage=Usage.of(read=120, cached=100, written=20),
    )
    wire = json.loads(decision.model_dump_json())
    assert wire["answers"][0] == {
        "type": "choice",
        "name": None,  # always written: the SDK's tool runner and langchain read it
        "choice": True,
        "confidence": 0.2,
        "probabilities": [{"value": True, "probability": 0.6}, {"value": "true", "probability": 0.4}],
    }
    assert wire["answers"][3] == {"type": "refusal", "name": None}
    assert wire["answers"][2]["probabilities"][1] == {"value": 1, "label": "angry", "probability": 0.5}
    assert wire["usage"] == {
        "input_tokens": 120,
        "input_tokens_details": {"cached_tokens": 100, "cache_write_tokens": 20},
        "output_tokens": 0,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 120,
    }
    assert isinstance(wire["usage"]["input_tokens"], int)
    with pytest.raises(ValidationError):
        PredicateAnswer(name=None, probability=1.5)


def test_the_model_list_is_the_sdks_page():
    page = ModelList(data=[ModelObject(id="multilingual-e5-small", created=1764547200, owned_by="zsc")])
    assert json.loads(page.model_dump_json()) == {
        "object": "list",
        "data": [{"id": "multilingual-e5-small", "object": "model", "created": 1764547200, "owned_by": "zsc"}],
    }


def test_yes_no_question_class():
    assert (
        ChoiceQuestion.model_validate(
            {"type": "choice", "instructions": "x", "choices": [{"value": True}, {"value": False}]}
        )
        .choices[0]
        .value
        is True
    )


def test_a_prompt_long_instruction_is_not_worded_into_every_option():
    stem = "Which team should handle this message?"
    short = parse(with_question(instructions=stem, choices=[{"value": "billing"}, {"value": "shipping"}]))
    assert wordings(short.questions[0], "embedding")[0].phrasings == (qa_hypothesis(stem, "billing", False),)
    prompt = "You are a support lead. " * 20 + stem  # a prompt, not a question: over 300 characters
    long = parse(with_question(instructions=prompt, choices=[{"value": "billing"}, {"value": "shipping"}]))
    assert wordings(long.questions[0], "embedding") == [Wording(("billing",), True), Wording(("shipping",), True)]
    assert not worded_as_answers(long.questions[0], "embedding") and worded_as_answers(short.questions[0], "embedding")


def test_what_the_model_reads_is_bounded_by_the_replicas_text_limit():
    long_option = with_question(choices=[{"value": "a"}, {"value": "b", "description": "x" * 50}])
    param, message = limit_problem(parse(long_option), max_pairs=100, max_text_chars=40)
    assert param == "questions[0].choices[1]" and "ZSC_MAX_TEXT_CHARS" in message
    param, message = limit_problem(parse(SDK_BODY), max_pairs=7)
    assert "ZSC_MAX_PAIRS_PER_REQUEST" in message


def test_a_body_that_is_not_an_object_is_told_so_in_the_apis_words():
    for body in (b"[]", b"42", b'"x"'):
        with pytest.raises(ValidationError) as info:
            DecisionCreateRequest.model_validate_json(body)
        param, message = envelope_fields(info.value)
        assert param is None and message.startswith("the body is not a JSON object") and "Decision" not in message
