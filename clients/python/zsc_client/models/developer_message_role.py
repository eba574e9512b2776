from typing import Literal

DeveloperMessageRole = Literal['developer']

DEVELOPER_MESSAGE_ROLE_VALUES: set[DeveloperMessageRole] = { 'developer',  }

def check_developer_message_role(value: str) -> DeveloperMessageRole:
    if value in DEVELOPER_MESSAGE_ROLE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DEVELOPER_MESSAGE_ROLE_VALUES!r}")
