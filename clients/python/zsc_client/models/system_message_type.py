from typing import Literal

SystemMessageType = Literal['message']

SYSTEM_MESSAGE_TYPE_VALUES: set[SystemMessageType] = { 'message',  }

def check_system_message_type(value: str) -> SystemMessageType:
    if value in SYSTEM_MESSAGE_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SYSTEM_MESSAGE_TYPE_VALUES!r}")
