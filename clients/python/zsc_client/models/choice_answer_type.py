from typing import Literal

ChoiceAnswerType = Literal['choice']

CHOICE_ANSWER_TYPE_VALUES: set[ChoiceAnswerType] = { 'choice',  }

def check_choice_answer_type(value: str) -> ChoiceAnswerType:
    if value in CHOICE_ANSWER_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CHOICE_ANSWER_TYPE_VALUES!r}")
