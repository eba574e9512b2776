from typing import Literal

JobStatusState = Literal['cancelled', 'done', 'queued', 'running']

JOB_STATUS_STATE_VALUES: set[JobStatusState] = { 'cancelled', 'done', 'queued', 'running',  }

def check_job_status_state(value: str) -> JobStatusState:
    if value in JOB_STATUS_STATE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_STATUS_STATE_VALUES!r}")
