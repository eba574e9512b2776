from typing import Literal

JobSubmissionTruncationType0 = Literal['chunk', 'end', 'error', 'start']

JOB_SUBMISSION_TRUNCATION_TYPE_0_VALUES: set[JobSubmissionTruncationType0] = { 'chunk', 'end', 'error', 'start',  }

def check_job_submission_truncation_type_0(value: str) -> JobSubmissionTruncationType0:
    if value in JOB_SUBMISSION_TRUNCATION_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_SUBMISSION_TRUNCATION_TYPE_0_VALUES!r}")
