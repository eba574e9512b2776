from typing import Literal

SystemOneChoiceAnswerType = Literal['choice']

SYSTEM_ONE_CHOICE_ANSWER_TYPE_VALUES: set[SystemOneChoiceAnswerType] = { 'choice',  }

def check_system_one_choice_answer_type(value: str) -> SystemOneChoiceAnswerType:
    if value in SYSTEM_ONE_CHOICE_ANSWER_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SYSTEM_ONE_CHOICE_ANSWER_TYPE_VALUES!r}")
