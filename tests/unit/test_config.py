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
    ],
)
def test_bad_settings_say_what_to_fix(env, message):
    with pytest.raises(ValueError, match=message):
        Settings.from_env(env)


def test_every_setting_is_documented():
    for env, _default, why in Settings.table():
        assert env.startswith("ZSC_") and len(why) > 10
