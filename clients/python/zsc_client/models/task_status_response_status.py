from typing import Literal

TaskStatusResponseStatus = Literal['cancelled', 'failure', 'in_progress', 'success']

TASK_STATUS_RESPONSE_STATUS_VALUES: set[TaskStatusResponseStatus] = { 'cancelled', 'failure', 'in_progress', 'success',  }

def check_task_status_response_status(value: str) -> TaskStatusResponseStatus:
    if value in TASK_STATUS_RESPONSE_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TASK_STATUS_RESPONSE_STATUS_VALUES!r}")
