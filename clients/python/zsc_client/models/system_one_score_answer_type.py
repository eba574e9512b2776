from typing import Literal

SystemOneScoreAnswerType = Literal['score']

SYSTEM_ONE_SCORE_ANSWER_TYPE_VALUES: set[SystemOneScoreAnswerType] = { 'score',  }

def check_system_one_score_answer_type(value: str) -> SystemOneScoreAnswerType:
    if value in SYSTEM_ONE_SCORE_ANSWER_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SYSTEM_ONE_SCORE_ANSWER_TYPE_VALUES!r}")
