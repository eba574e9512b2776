from typing import Literal

QuestionImageDetailType0 = Literal['auto', 'high', 'low', 'original']

QUESTION_IMAGE_DETAIL_TYPE_0_VALUES: set[QuestionImageDetailType0] = { 'auto', 'high', 'low', 'original',  }

def check_question_image_detail_type_0(value: str) -> QuestionImageDetailType0:
    if value in QUESTION_IMAGE_DETAIL_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {QUESTION_IMAGE_DETAIL_TYPE_0_VALUES!r}")
