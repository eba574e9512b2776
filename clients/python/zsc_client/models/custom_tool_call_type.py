from typing import Literal

CustomToolCallType = Literal['custom_tool_call']

CUSTOM_TOOL_CALL_TYPE_VALUES: set[CustomToolCallType] = { 'custom_tool_call',  }

def check_custom_tool_call_type(value: str) -> CustomToolCallType:
    if value in CUSTOM_TOOL_CALL_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CUSTOM_TOOL_CALL_TYPE_VALUES!r}")
