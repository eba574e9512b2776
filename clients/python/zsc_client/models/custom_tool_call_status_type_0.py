from typing import Literal

CustomToolCallStatusType0 = Literal['completed', 'in_progress', 'incomplete']

CUSTOM_TOOL_CALL_STATUS_TYPE_0_VALUES: set[CustomToolCallStatusType0] = { 'completed', 'in_progress', 'incomplete',  }

def check_custom_tool_call_status_type_0(value: str) -> CustomToolCallStatusType0:
    if value in CUSTOM_TOOL_CALL_STATUS_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CUSTOM_TOOL_CALL_STATUS_TYPE_0_VALUES!r}")
