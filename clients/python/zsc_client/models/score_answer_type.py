from typing import Literal

ScoreAnswerType = Literal['score']

SCORE_ANSWER_TYPE_VALUES: set[ScoreAnswerType] = { 'score',  }

def check_score_answer_type(value: str) -> ScoreAnswerType:
    if value in SCORE_ANSWER_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SCORE_ANSWER_TYPE_VALUES!r}")
