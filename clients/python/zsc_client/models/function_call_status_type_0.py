from typing import Literal

FunctionCallStatusType0 = Literal['completed', 'in_progress', 'incomplete']

FUNCTION_CALL_STATUS_TYPE_0_VALUES: set[FunctionCallStatusType0] = { 'completed', 'in_progress', 'incomplete',  }

def check_function_call_status_type_0(value: str) -> FunctionCallStatusType0:
    if value in FUNCTION_CALL_STATUS_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {FUNCTION_CALL_STATUS_TYPE_0_VALUES!r}")
