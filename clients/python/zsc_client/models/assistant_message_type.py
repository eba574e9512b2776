from typing import Literal

AssistantMessageType = Literal['message']

ASSISTANT_MESSAGE_TYPE_VALUES: set[AssistantMessageType] = { 'message',  }

def check_assistant_message_type(value: str) -> AssistantMessageType:
    if value in ASSISTANT_MESSAGE_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ASSISTANT_MESSAGE_TYPE_VALUES!r}")
