from typing import Literal

FunctionCallOutputType = Literal['function_call_output']

FUNCTION_CALL_OUTPUT_TYPE_VALUES: set[FunctionCallOutputType] = { 'function_call_output',  }

def check_function_call_output_type(value: str) -> FunctionCallOutputType:
    if value in FUNCTION_CALL_OUTPUT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {FUNCTION_CALL_OUTPUT_TYPE_VALUES!r}")
