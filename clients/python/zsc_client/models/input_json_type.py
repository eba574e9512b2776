from typing import Literal

InputJsonType = Literal['input_json']

INPUT_JSON_TYPE_VALUES: set[InputJsonType] = { 'input_json',  }

def check_input_json_type(value: str) -> InputJsonType:
    if value in INPUT_JSON_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {INPUT_JSON_TYPE_VALUES!r}")
