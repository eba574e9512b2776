from typing import Literal

JobItemTruncation = Literal['chunk', 'end', 'error', 'start']

JOB_ITEM_TRUNCATION_VALUES: set[JobItemTruncation] = { 'chunk', 'end', 'error', 'start',  }

def check_job_item_truncation(value: str) -> JobItemTruncation:
    if value in JOB_ITEM_TRUNCATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_ITEM_TRUNCATION_VALUES!r}")
