import pytest

from service.config import Settings


def test_defaults_and_env_override():
    s = Settings.from_env({"ZSC_TOKEN_BUDGET": "4096", "ZSC_DEVICE": "cpu"})
    assert s.token_budget == 4096 and s.device == "cpu"
    assert Settings.from_env({}).model == "multilingual-e5-small"


@pytest.mark.parametrize(
    "env, message",
    [
        ({"ZSC_DEVICE": "tpu"}, "ZSC_DEVICE must be one of"),
        ({"ZSC_TOKEN_BUDGET": "lots"}, "ZSC_TOKEN_BUDGET must be an integer"),
        ({"ZSC_MAX_LABELS": "0"}, "ZSC_MAX_LABELS must be > 0"),
        ({"ZSC_MAX_BATCH_SIZE": "1"}, ">= 2"),
        ({"ZSC_JOBS_REDIS_URL": "localhost:6379"}, "ZSC_JOBS_REDIS_URL must start with redis://"),
        ({"ZSC_JOB_YIELD_SCOPE": "node"}, "ZSC_JOB_YIELD_SCOPE must be one of"),
        ({"ZSC_ROLE": "worker"}, "ZSC_ROLE must be one of"),
        ({"ZSC_ROLE": "jobs"}, "ZSC_ROLE=jobs needs the jobs Redis"),
        ({"ZSC_ROLE": "jobs", "ZSC_REDIS_URL": "redis://r:6379/0", "ZSC_JOB_WORKERS": "0"}, "must be >= 1"),
        ({"ZSC_JOB_DRAIN_S": "-1"}, "ZSC_JOB_DRAIN_S must be >= 0"),
        ({"ZSC_MODEL_ALIASES": "gpt-6-luna"}, "'gpt-6-luna' is not alias=model"),
        ({"ZSC_MODEL_ALIASES": "gpt-6-luna=e5"}, "names 'e5', which this replica does not serve"),
        ({"ZSC_MODEL_ALIASES": "a=multilingual-e5-small,a=multilingual-e5-small"}, "the alias 'a' twice"),
        ({"ZSC_MODEL_ALIASES": "multilingual-e5-small=multilingual-e5-small"}, "already the name of a model"),
        ({"ZSC_MODEL_ALIASES": "a/b=multilingual-e5-small"}, "'a/b' is not a name"),
        ({"ZSC_ONNX_VARIANT": "int8"}, "ZSC_ONNX_VARIANT=int8 is gone: set ZSC_PRECISION .* and ZSC_RUNTIME"),
        ({"ZSC_RUNTIME": "torch", "ZSC_PRECISION": "int8"}, "ZSC_RUNTIME=torch runs fp32, fp16, not ZSC_PREC"),
        ({"ZSC_RUNTIME": "onnx", "ZSC_PRECISION": "bf16"}, "ZSC_RUNTIME=onnx runs fp32, int8, fp16, not"),
        ({"ZSC_PRECISION": "fp8"}, "ZSC_PRECISION must be one of"),
        ({"ZSC_CLOSE_CALL_MARGIN": "1.5"}, "ZSC_CLOSE_CALL_MARGIN must be between 0 and 1, got 1.5"),
        ({"ZSC_CLOSE_CALL_MARGIN": "close"}, "ZSC_CLOSE_CALL_MARGIN must be a number, got 'close'"),
        ({"ZSC_CALIBRATION_SOURCE_SHARE": "0"}, "ZSC_CALIBRATION_SOURCE_SHARE must be in"),
    ],
)
def test_bad_settings_say_what_to_fix(env, message):
    with pytest.raises(ValueError, match=message):
        Settings.from_env(env)


def test_number_settings_are_read_as_numbers():
    s = Settings.from_env({"ZSC_CLOSE_CALL_MARGIN": "0.02", "ZSC_CALIBRATION_SOURCE_SHARE": "0.25"})
    assert (s.close_call_margin, s.calibration_source_share) == (0.02, 0.25)


def test_every_setting_is_documented():
    for env, _default, why in Settings.table():
        assert env.startswith("ZSC_") and len(why) > 10


def test_jobs_use_their_own_redis_else_the_caches():
    assert Settings.from_env({}).jobs_redis == ""  # in-process jobs
    cache = "redis://cache:6379/0"
    assert Settings.from_env({"ZSC_REDIS_URL": cache}).jobs_redis == cache
    both = Settings.from_env({"ZSC_REDIS_URL": cache, "ZSC_JOBS_REDIS_URL": "redis://:s3cret@jobs:6379/0"})
    assert both.jobs_redis == "redis://:s3cret@jobs:6379/0" and both.redis_url == cache
    assert both.redacted()["jobs_redis_url"] == "redis://:***@jobs:6379/0"


def test_model_aliases():
    s = Settings.from_env({"ZSC_MODEL_ALIASES": " gpt-6-luna = multilingual-e5-small , x=multilingual-e5-small:abc"})
    assert s.aliases() == {"gpt-6-luna": "multilingual-e5-small", "x": "multilingual-e5-small:abc"}
    assert Settings.from_env({}).aliases() == {}
    # with a models file the served models change while serving: the alias is resolved per request (404)
    assert Settings.from_env({"ZSC_MODELS_FILE": "/m", "ZSC_MODEL_ALIASES": "a=other"}).aliases() == {"a": "other"}


def test_roles_decide_who_runs_job_chunks():
    jobs_redis = {"ZSC_JOBS_REDIS_URL": "redis://jobs:6379/0"}
    assert Settings.from_env({}).runs_jobs and Settings.from_env({}).role == "all"
    assert not Settings.from_env({"ZSC_ROLE": "api"}).runs_jobs
    assert Settings.from_env({"ZSC_ROLE": "jobs", **jobs_redis}).runs_jobs
    assert not Settings.from_env({"ZSC_JOB_WORKERS": "0"}).runs_jobs


def test_the_runtime_folder_is_the_setting_else_under_bentoml_home(monkeypatch, tmp_path):
    assert Settings.from_env({"ZSC_RUNTIME_CACHE_DIR": str(tmp_path)}).runtime_dir() == tmp_path
    monkeypatch.setenv("BENTOML_HOME", str(tmp_path / "home"))
    assert Settings.from_env({}).runtime_dir() == tmp_path / "home" / "zsc-runtime"
