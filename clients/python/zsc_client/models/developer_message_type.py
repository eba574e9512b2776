from typing import Literal

DeveloperMessageType = Literal['message']

DEVELOPER_MESSAGE_TYPE_VALUES: set[DeveloperMessageType] = { 'message',  }

def check_developer_message_type(value: str) -> DeveloperMessageType:
    if value in DEVELOPER_MESSAGE_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DEVELOPER_MESSAGE_TYPE_VALUES!r}")
