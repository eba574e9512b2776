from typing import Literal

ChoiceQuestionType = Literal['choice']

CHOICE_QUESTION_TYPE_VALUES: set[ChoiceQuestionType] = { 'choice',  }

def check_choice_question_type(value: str) -> ChoiceQuestionType:
    if value in CHOICE_QUESTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CHOICE_QUESTION_TYPE_VALUES!r}")
