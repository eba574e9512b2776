from typing import Literal

JobItemCalibrationType0 = Literal['job', 'none', 'traffic']

JOB_ITEM_CALIBRATION_TYPE_0_VALUES: set[JobItemCalibrationType0] = { 'job', 'none', 'traffic',  }

def check_job_item_calibration_type_0(value: str) -> JobItemCalibrationType0:
    if value in JOB_ITEM_CALIBRATION_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_ITEM_CALIBRATION_TYPE_0_VALUES!r}")
