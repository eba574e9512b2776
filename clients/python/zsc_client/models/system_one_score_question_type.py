from typing import Literal

SystemOneScoreQuestionType = Literal['score']

SYSTEM_ONE_SCORE_QUESTION_TYPE_VALUES: set[SystemOneScoreQuestionType] = { 'score',  }

def check_system_one_score_question_type(value: str) -> SystemOneScoreQuestionType:
    if value in SYSTEM_ONE_SCORE_QUESTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SYSTEM_ONE_SCORE_QUESTION_TYPE_VALUES!r}")
