from typing import Literal

JobStatusBackend = Literal['memory', 'redis']

JOB_STATUS_BACKEND_VALUES: set[JobStatusBackend] = { 'memory', 'redis',  }

def check_job_status_backend(value: str) -> JobStatusBackend:
    if value in JOB_STATUS_BACKEND_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_STATUS_BACKEND_VALUES!r}")
