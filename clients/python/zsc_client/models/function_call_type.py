from typing import Literal

FunctionCallType = Literal['function_call']

FUNCTION_CALL_TYPE_VALUES: set[FunctionCallType] = { 'function_call',  }

def check_function_call_type(value: str) -> FunctionCallType:
    if value in FUNCTION_CALL_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {FUNCTION_CALL_TYPE_VALUES!r}")
