from typing import Literal

QuestionTextType = Literal['input_text']

QUESTION_TEXT_TYPE_VALUES: set[QuestionTextType] = { 'input_text',  }

def check_question_text_type(value: str) -> QuestionTextType:
    if value in QUESTION_TEXT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {QUESTION_TEXT_TYPE_VALUES!r}")
