from typing import Literal

QuestionImageType = Literal['input_image']

QUESTION_IMAGE_TYPE_VALUES: set[QuestionImageType] = { 'input_image',  }

def check_question_image_type(value: str) -> QuestionImageType:
    if value in QUESTION_IMAGE_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {QUESTION_IMAGE_TYPE_VALUES!r}")
