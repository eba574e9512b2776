from typing import Literal

CustomToolCallOutputType = Literal['custom_tool_call_output']

CUSTOM_TOOL_CALL_OUTPUT_TYPE_VALUES: set[CustomToolCallOutputType] = { 'custom_tool_call_output',  }

def check_custom_tool_call_output_type(value: str) -> CustomToolCallOutputType:
    if value in CUSTOM_TOOL_CALL_OUTPUT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CUSTOM_TOOL_CALL_OUTPUT_TYPE_VALUES!r}")
