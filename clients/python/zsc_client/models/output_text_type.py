from typing import Literal

OutputTextType = Literal['output_text']

OUTPUT_TEXT_TYPE_VALUES: set[OutputTextType] = { 'output_text',  }

def check_output_text_type(value: str) -> OutputTextType:
    if value in OUTPUT_TEXT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {OUTPUT_TEXT_TYPE_VALUES!r}")
