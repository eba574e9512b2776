"""Where the runtime choice is remembered: a key that changes with what the measurement depended on, a
record that round-trips, and a folder that cannot be written costs a measurement, never the start."""

from __future__ import annotations

from service.engine.runtime_memory import choice_key, cpu_info, recall, remember, runtime_versions


def test_the_key_follows_the_revision_the_threads_and_the_candidates():
    key = choice_key("sha256:a", 2, ["onnx fp32", "openvino fp32"])
    assert key == choice_key("sha256:a", 2, ["onnx fp32", "openvino fp32"])
    assert key != choice_key("sha256:b", 2, ["onnx fp32", "openvino fp32"])
    assert key != choice_key("sha256:a", 1, ["onnx fp32", "openvino fp32"])
    assert key != choice_key("sha256:a", 2, ["onnx fp32"])


def test_the_cpu_and_runtimes_are_read_at_run_time():
    name, flags = cpu_info()
    assert name and isinstance(flags, tuple) and list(flags) == sorted(flags)
    assert "onnxruntime" in runtime_versions()


def test_a_record_round_trips_and_an_unwritable_folder_is_not_fatal(tmp_path, caplog):
    remember(tmp_path, "k", {"runtime": "onnx", "precision": "fp32"})
    assert recall(tmp_path, "k") == {"runtime": "onnx", "precision": "fp32"}
    assert recall(tmp_path, "other") is None
    blocked = tmp_path / "file"
    blocked.write_text("")
    remember(blocked / "sub", "k", {"x": 1})  # a file where the folder should be
    assert recall(blocked / "sub", "k") is None and "measures again" in caplog.text
