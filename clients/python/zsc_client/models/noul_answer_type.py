from typing import Literal

NoulAnswerType = Literal['noul']

NOUL_ANSWER_TYPE_VALUES: set[NoulAnswerType] = { 'noul',  }

def check_noul_answer_type(value: str) -> NoulAnswerType:
    if value in NOUL_ANSWER_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {NOUL_ANSWER_TYPE_VALUES!r}")
