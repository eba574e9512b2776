from typing import Literal

JobSubmissionCalibrationType0 = Literal['job', 'none', 'traffic']

JOB_SUBMISSION_CALIBRATION_TYPE_0_VALUES: set[JobSubmissionCalibrationType0] = { 'job', 'none', 'traffic',  }

def check_job_submission_calibration_type_0(value: str) -> JobSubmissionCalibrationType0:
    if value in JOB_SUBMISSION_CALIBRATION_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_SUBMISSION_CALIBRATION_TYPE_0_VALUES!r}")
