"""Script detection for the language warning."""

from __future__ import annotations

from service.core.languages import dominant_script, mismatch, scripts_of


def test_scripts_of_languages():
    assert scripts_of(("en",)) == {"LATIN"}
    assert scripts_of(("zh", "ja")) == {"CJK", "HIRAGANA", "KATAKANA"}
    assert "CYRILLIC" in scripts_of(("ru", "en")) and "LATIN" in scripts_of(("sw",))


def test_dominant_script_counts_letters_only():
    assert dominant_script("我的快递三天了还没到，123!!") == ("CJK", 1.0, 10)
    name, share, letters = dominant_script("iPhone 15 的电池")
    assert name == "LATIN" and share == 6 / 9 and letters == 9
    assert dominant_script("12345 !!!")[0] is None
    assert dominant_script("ＡＢＣＤ")[0] == "LATIN"  # full-width Latin letters


def test_chinese_on_an_english_model_is_flagged_english_is_not():
    message = mismatch("我的快递三天了还没到，什么时候发货？", ("en",))
    assert message and "Cjk script" in message and "(en)" in message
    assert mismatch("Where is my parcel? It has not arrived.", ("en",)) is None
    assert mismatch("我的快递三天了还没到", ("zh", "en")) is None
    assert mismatch("Привет, как дела?", ("en",)) is not None


def test_no_warning_when_unsure():
    assert mismatch("我的快递", ()) is None  # the model's languages are not known
    assert mismatch("好", ("en",)) is None  # too few letters to tell
    assert mismatch("The 快递 was late, the parcel was broken", ("en",)) is None  # mostly Latin
