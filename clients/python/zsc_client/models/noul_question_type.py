from typing import Literal

NoulQuestionType = Literal['noul']

NOUL_QUESTION_TYPE_VALUES: set[NoulQuestionType] = { 'noul',  }

def check_noul_question_type(value: str) -> NoulQuestionType:
    if value in NOUL_QUESTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {NOUL_QUESTION_TYPE_VALUES!r}")
