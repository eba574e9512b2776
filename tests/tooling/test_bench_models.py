"""The random-weight benchmark models' vocabulary: every word of the workload and of the runtime choice's
sample tokenizes to something other than [UNK] (else labels made of unknown words would be the same input,
and the start-up gate would judge ties), and the workload's English words are mostly one token each."""

from __future__ import annotations

import json

from loadtest.models import _strings, write_workload_vocab
from loadtest.workload import load_rows
from service.engine.runtime_probe import SAMPLE


def test_no_word_of_the_workload_or_the_sample_is_unknown(tmp_path):
    from transformers import BertTokenizerFast

    write_workload_vocab(tmp_path, 21128)
    vocab = (tmp_path / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert len(vocab) == 21128 and len(set(vocab)) == len(vocab)
    tokenizer = BertTokenizerFast(vocab_file=str(tmp_path / "vocab.txt"))
    strings = _strings(json.loads(SAMPLE.read_text(encoding="utf-8"))) + [r.text for r in load_rows()]
    tokens = [t for s in strings for t in tokenizer.tokenize(s)]
    assert "[UNK]" not in tokens
    english = [r.text for r in load_rows() if r.lang == "en"]
    words = sum(len(t.split()) for t in english)
    assert sum(len(tokenizer.tokenize(t)) for t in english) < 1.5 * words
    assert tokenizer.tokenize("zyxq") == ["z", "##y", "##x", "##q"]  # a word it never saw: letters, not [UNK]
