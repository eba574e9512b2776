"""Evaluation and tuning maths without a service: metrics worked out by hand, labelled files, stratified
sampling and splits, threshold fitting, label-set files."""

from __future__ import annotations

import json

import pytest

from service.pipeline.label_sets import LabelSet, LabelSetError, dump, load_dir
from service.quality.evaluation import ABSTAIN, Remote, RemoteError, score_multi, score_single
from service.quality.labelled import DataError, Labelled, read, stratified_sample, stratified_split
from service.quality.tuning import Combination, combinations, fit_threshold, fit_thresholds


def test_single_label_metrics_by_hand():
    truth = ["a", "a", "a", "b", "b", "c"]
    pred = ["a", "a", "b", "b", None, "a"]
    m = score_single(truth, pred, ["a", "b", "c"])
    assert m.accuracy == pytest.approx(3 / 6)
    # a: tp 2, fp 1 (the c), fn 1 -> p 2/3 r 2/3; b: tp 1, fp 1, fn 1 -> 1/2 1/2; c: tp 0 -> 0
    assert m.per_class["a"].precision == pytest.approx(2 / 3) and m.per_class["a"].recall == pytest.approx(2 / 3)
    assert m.per_class["b"].f1 == pytest.approx(0.5) and m.per_class["c"].f1 == 0.0
    assert m.macro_f1 == pytest.approx((2 / 3 + 0.5 + 0) / 3)
    assert m.confusion["a"] == {"a": 2, "b": 1, "c": 0}
    assert m.confusion["b"] == {"a": 0, "b": 1, "c": 0, ABSTAIN: 1}
    assert m.abstain_rate == pytest.approx(1 / 6) and m.answered == 5
    assert m.answered_accuracy == pytest.approx(3 / 5)
    assert [m.per_class[c].support for c in "abc"] == [3, 2, 1]


def test_multi_label_metrics_by_hand():
    truth = [["a", "b"], ["a"], ["c"]]
    pred = [["a"], ["a", "c"], ["c"]]
    m = score_multi(truth, pred, ["a", "b", "c"])
    assert m.accuracy == pytest.approx(1 / 3)  # exact match: only the third
    # micro: tp a2 c1 = 3, fp c1 = 1, fn b1 = 1 -> p 3/4 r 3/4
    assert m.micro_f1 == pytest.approx(0.75)
    assert m.per_class["b"].recall == 0 and m.per_class["c"].precision == pytest.approx(0.5)


def test_labelled_files_in_three_formats(tmp_path):
    (tmp_path / "d.csv").write_text('text,label\nhello,greet\n"bye, now",leave\n', encoding="utf-8")
    (tmp_path / "d.tsv").write_text("sentence\tid\n你好\t0\n再见\t1\n", encoding="utf-8")
    (tmp_path / "d.jsonl").write_text(json.dumps({"text": "x", "label": "a|b"}) + "\n", encoding="utf-8")
    csv = read(tmp_path / "d.csv")
    assert (
        csv.texts == ["hello", "bye, now"]
        and csv.labels == [["greet"], ["leave"]]
        and csv.classes == ["greet", "leave"]
    )
    tsv = read(tmp_path / "d.tsv", "sentence", "id", label_names=["问候", "告别"])
    assert tsv.labels == [["问候"], ["告别"]] and tsv.classes == ["问候", "告别"]
    multi = read(tmp_path / "d.jsonl", separator="|")
    assert multi.labels == [["a", "b"]] and multi.multi_label
    with pytest.raises(DataError, match="no column 'txt'; the columns are"):
        read(tmp_path / "d.csv", text_column="txt")
    named = read(tmp_path / "d.csv", label_names=["leave", "greet", "thank"])  # names, and the full candidate list
    assert named.labels == [["greet"], ["leave"]] and named.classes == ["leave", "greet", "thank"]
    with pytest.raises(DataError, match="label '1' is neither one of the 1 label names nor an id into them"):
        read(tmp_path / "d.tsv", "sentence", "id", label_names=["only"])


def dataset(per_class=(50, 30, 20)):
    texts, labels = [], []
    for c, n in zip("abc", per_class):
        texts += [f"{c}{i}" for i in range(n)]
        labels += [[c]] * n
    return Labelled(texts, labels, ["a", "b", "c"], "t", False, list(range(len(texts))))


def test_stratified_sampling_keeps_class_shares_and_never_takes_the_first_rows_only():
    data = dataset()
    sample = stratified_sample(data, 10, seed=1)
    counts = {c: sum(1 for row in sample.labels if row[0] == c) for c in "abc"}
    assert counts == {"a": 5, "b": 3, "c": 2}
    assert sample.rows == sorted(sample.rows) and sample.rows != list(range(10))


def test_stratified_split_is_disjoint_and_complete():
    data = dataset()
    first, rest = stratified_split(data, 0.5, seed=3)
    assert sorted(first.rows + rest.rows) == list(range(len(data))) and not set(first.rows) & set(rest.rows)
    assert {row[0] for row in first.labels} == {row[0] for row in rest.labels} == {"a", "b", "c"}


def test_combinations_and_their_labels():
    phr = {"a": ["alpha", "first"], "b": ["beta"]}
    combos = combinations(["{}", "It is {}."], phr)
    assert [c.strategy for c in combos[:4]] == ["names", "phrasing 0", "phrasing 1", "ensemble"] and len(combos) == 8
    assert Combination("{}", "phrasing 1").labels(["a", "b", "c"], phr) == [
        {"name": "a", "description": "first"},
        "b",
        "c",
    ]
    assert Combination("{}", "ensemble").labels(["a", "b"], phr)[0] == {"name": "a", "description": ["alpha", "first"]}


def answers_for(tops):
    return [{"labels": [label, "other"], "scores": [score, 1 - score]} for label, score in tops]


def test_threshold_for_a_target_precision():
    data = Labelled(["1", "2", "3", "4"], [["a"], ["a"], ["b"], ["b"]], ["a", "b"], "t", False, [0, 1, 2, 3])
    answers = answers_for([("a", 0.9), ("b", 0.4), ("b", 0.8), ("a", 0.6)])  # right, wrong, right, wrong
    fitted = fit_threshold(data, answers, target_precision=0.99)
    assert fitted["threshold"] == 0.8 and fitted["coverage"] == 0.5 and fitted["precision"] == 1.0
    assert fit_threshold(data, answers, None)["threshold"] is not None


def test_per_label_thresholds_for_multi_label():
    data = Labelled(["1", "2", "3"], [["a"], ["a", "b"], ["b"]], ["a", "b"], "t", True, [0, 1, 2])
    answers = [
        {"labels": ["a", "b"], "scores": [0.9, 0.2]},
        {"labels": ["a", "b"], "scores": [0.7, 0.6]},
        {"labels": ["b", "a"], "scores": [0.8, 0.65]},
    ]
    assert fit_thresholds(data, answers, None) == {"a": 0.7, "b": 0.6}


def test_label_set_files(tmp_path):
    ok = LabelSet.model_validate(
        {"name": "s1", "labels": ["a", {"name": "b", "description": ["x", "y"]}], "threshold": 0.4}
    )
    dump(ok, tmp_path / "s1.yaml")
    assert load_dir(tmp_path)["s1"] == ok
    (tmp_path / "bad.yml").write_text("name: s2\nlabels: [a, a]\n")
    with pytest.raises(LabelSetError, match=r"(?s)bad\.yml.*appears twice"):
        load_dir(tmp_path)
    (tmp_path / "bad.yml").write_text("name: s1\nlabels: [c]\n")
    with pytest.raises(LabelSetError, match="'s1' is defined twice"):
        load_dir(tmp_path)
    with pytest.raises(LabelSetError, match="not a directory"):
        load_dir(tmp_path / "none")


def test_a_set_is_written_without_the_local_limits_and_checked_against_the_serving_ones(tmp_path):
    many = {"name": "wide", "labels": [f"intent {i}" for i in range(100)]}  # over the default 64
    dump(LabelSet.model_validate(many, context={"limits": False}), tmp_path / "wide.yaml")
    with pytest.raises(LabelSetError, match="100 labels; the limit is 64"):
        load_dir(tmp_path)


def test_a_file_without_a_header_names_columns_by_number(tmp_path):
    (tmp_path / "t.tsv").write_text("第一条新闻\t3\n第二条新闻\t0\n", encoding="utf-8")
    data = read(tmp_path / "t.tsv", "0", "1", label_names=list("abcd"), header=False)
    assert data.texts == ["第一条新闻", "第二条新闻"] and data.labels == [["d"], ["a"]]


def test_where_keeps_only_matching_rows_and_their_positions(tmp_path):
    rows = [{"domain": "news", "label": "a", "text": "x"}, {"domain": "support", "label": "b", "text": "y"}]
    rows.append({"domain": "news", "label": "c", "text": "z"})
    (tmp_path / "w.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    news = read(tmp_path / "w.jsonl", where={"domain": "news"})
    assert news.texts == ["x", "z"] and news.classes == ["a", "c"] and news.rows == [0, 2]
    with pytest.raises(DataError, match="no row matches"):
        read(tmp_path / "w.jsonl", where={"domain": "sport"})
    with pytest.raises(DataError, match="no column 'lang'"):
        read(tmp_path / "w.jsonl", where={"lang": "en"})


def test_a_service_that_is_not_there_is_an_error_that_says_where_not_a_traceback():
    import socket

    with socket.socket() as free:  # a port nothing listens on once it is closed
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    remote = Remote(f"http://127.0.0.1:{port}", progress=False)
    with pytest.raises(RemoteError, match=rf"could not reach http://127.0.0.1:{port}: .*is the service running"):
        remote.classify([{"text": "a", "labels": ["x", "y"]}])
