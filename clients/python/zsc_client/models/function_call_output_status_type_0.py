from typing import Literal

FunctionCallOutputStatusType0 = Literal['completed', 'in_progress', 'incomplete']

FUNCTION_CALL_OUTPUT_STATUS_TYPE_0_VALUES: set[FunctionCallOutputStatusType0] = { 'completed', 'in_progress', 'incomplete',  }

def check_function_call_output_status_type_0(value: str) -> FunctionCallOutputStatusType0:
    if value in FUNCTION_CALL_OUTPUT_STATUS_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {FUNCTION_CALL_OUTPUT_STATUS_TYPE_0_VALUES!r}")
