from typing import Literal

SystemOneChoiceQuestionType = Literal['choice']

SYSTEM_ONE_CHOICE_QUESTION_TYPE_VALUES: set[SystemOneChoiceQuestionType] = { 'choice',  }

def check_system_one_choice_question_type(value: str) -> SystemOneChoiceQuestionType:
    if value in SYSTEM_ONE_CHOICE_QUESTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SYSTEM_ONE_CHOICE_QUESTION_TYPE_VALUES!r}")
