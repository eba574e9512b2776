from typing import Literal

CustomToolCallOutputStatusType0 = Literal['completed', 'in_progress', 'incomplete']

CUSTOM_TOOL_CALL_OUTPUT_STATUS_TYPE_0_VALUES: set[CustomToolCallOutputStatusType0] = { 'completed', 'in_progress', 'incomplete',  }

def check_custom_tool_call_output_status_type_0(value: str) -> CustomToolCallOutputStatusType0:
    if value in CUSTOM_TOOL_CALL_OUTPUT_STATUS_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CUSTOM_TOOL_CALL_OUTPUT_STATUS_TYPE_0_VALUES!r}")
