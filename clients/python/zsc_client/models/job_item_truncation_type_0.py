from typing import Literal

JobItemTruncationType0 = Literal['chunk', 'end', 'error', 'start']

JOB_ITEM_TRUNCATION_TYPE_0_VALUES: set[JobItemTruncationType0] = { 'chunk', 'end', 'error', 'start',  }

def check_job_item_truncation_type_0(value: str) -> JobItemTruncationType0:
    if value in JOB_ITEM_TRUNCATION_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_ITEM_TRUNCATION_TYPE_0_VALUES!r}")
