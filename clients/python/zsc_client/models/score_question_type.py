from typing import Literal

ScoreQuestionType = Literal['score']

SCORE_QUESTION_TYPE_VALUES: set[ScoreQuestionType] = { 'score',  }

def check_score_question_type(value: str) -> ScoreQuestionType:
    if value in SCORE_QUESTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SCORE_QUESTION_TYPE_VALUES!r}")
