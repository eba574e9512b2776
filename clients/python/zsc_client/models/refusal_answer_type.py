from typing import Literal

RefusalAnswerType = Literal['refusal']

REFUSAL_ANSWER_TYPE_VALUES: set[RefusalAnswerType] = { 'refusal',  }

def check_refusal_answer_type(value: str) -> RefusalAnswerType:
    if value in REFUSAL_ANSWER_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {REFUSAL_ANSWER_TYPE_VALUES!r}")
