from typing import Literal

InputTextType = Literal['input_text']

INPUT_TEXT_TYPE_VALUES: set[InputTextType] = { 'input_text',  }

def check_input_text_type(value: str) -> InputTextType:
    if value in INPUT_TEXT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {INPUT_TEXT_TYPE_VALUES!r}")
