from typing import Literal

UserMessageType = Literal['message']

USER_MESSAGE_TYPE_VALUES: set[UserMessageType] = { 'message',  }

def check_user_message_type(value: str) -> UserMessageType:
    if value in USER_MESSAGE_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {USER_MESSAGE_TYPE_VALUES!r}")
