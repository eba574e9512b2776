"""Whether a text is written in a script the model's languages cover. Pure: Unicode character names only.

A model trained on English (all-MiniLM-L6-v2) ranks labels for a Chinese text near chance and says
nothing about it; this lets the answer say so. "Clearly outside" means: at least ``MIN_LETTERS`` letters,
and the script most of them are written in (``MIN_SHARE``) belongs to none of the model's languages.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from collections.abc import Iterable

MIN_LETTERS = 4
MIN_SHARE = 0.5

# ISO 639-1 -> the scripts (first word of a letter's Unicode name) the language is written in; a language
# not listed is written in Latin script
_SCRIPTS: dict[str, frozenset[str]] = {
    **{lang: frozenset({"CJK"}) for lang in ("zh",)},
    "ja": frozenset({"CJK", "HIRAGANA", "KATAKANA"}),
    "ko": frozenset({"HANGUL", "CJK"}),
    **{lang: frozenset({"CYRILLIC"}) for lang in ("ru", "uk", "bg", "be", "kk", "ky", "mk", "mn", "sr", "tg")},
    **{lang: frozenset({"ARABIC"}) for lang in ("ar", "fa", "ur", "ps", "sd", "ug", "ku")},
    **{lang: frozenset({"HEBREW"}) for lang in ("he", "yi")},
    "el": frozenset({"GREEK"}),
    "th": frozenset({"THAI"}),
    **{lang: frozenset({"DEVANAGARI"}) for lang in ("hi", "mr", "ne", "sa")},
    **{lang: frozenset({"BENGALI"}) for lang in ("bn", "as")},
    "ta": frozenset({"TAMIL"}),
    "te": frozenset({"TELUGU"}),
    "kn": frozenset({"KANNADA"}),
    "ml": frozenset({"MALAYALAM"}),
    "gu": frozenset({"GUJARATI"}),
    "pa": frozenset({"GURMUKHI"}),
    "or": frozenset({"ORIYA"}),
    "si": frozenset({"SINHALA"}),
    "my": frozenset({"MYANMAR"}),
    "km": frozenset({"KHMER"}),
    "lo": frozenset({"LAO"}),
    "ka": frozenset({"GEORGIAN"}),
    "hy": frozenset({"ARMENIAN"}),
    "am": frozenset({"ETHIOPIC"}),
}
_LATIN = frozenset({"LATIN"})


@functools.lru_cache(maxsize=64)
def scripts_of(languages: tuple[str, ...]) -> frozenset[str]:
    out: set[str] = set()
    for lang in languages:
        out |= _SCRIPTS.get(lang.lower(), _LATIN)
    return frozenset(out)


@functools.lru_cache(maxsize=4096)  # a text's scan looks up each letter: a name lookup and a split each time
def script(ch: str) -> str | None:
    """The script of a letter (the first word of its Unicode name: LATIN, CJK, CYRILLIC ...), else None.
    Full-width Latin letters are LATIN too."""
    if not ch.isalpha():
        return None
    name = unicodedata.name(ch, "")
    if name.startswith("FULLWIDTH LATIN"):
        return "LATIN"
    return name.split(" ", 1)[0] or None


def dominant_script(text: str) -> tuple[str | None, float, int]:
    """(script most letters are in, its share of the letters, number of letters)."""
    counts = Counter(s for s in map(script, text) if s)
    letters = sum(counts.values())
    if not letters:
        return None, 0.0, 0
    name, n = counts.most_common(1)[0]
    return name, n / letters, letters


def mismatch(text: str, languages: Iterable[str]) -> str | None:
    """A message when the text is clearly in a script the languages do not cover; None otherwise (also when
    the model's languages are not known)."""
    languages = tuple(languages)
    if not languages or (text.isascii() and "LATIN" in scripts_of(languages)):  # most traffic: no scan
        return None
    name, share, letters = dominant_script(text)
    if name is None or letters < MIN_LETTERS or share < MIN_SHARE or name in scripts_of(languages):
        return None
    shown = ", ".join(languages[:8]) + (", ..." if len(languages) > 8 else "")
    return (
        f"the text is mostly in {name.title()} script, which none of this model's languages ({shown}) is written "
        "in: its scores are likely near chance; use a model that covers the text's language"
    )
