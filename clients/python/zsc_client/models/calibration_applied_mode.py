from typing import Literal

CalibrationAppliedMode = Literal['frozen', 'job', 'none', 'traffic']

CALIBRATION_APPLIED_MODE_VALUES: set[CalibrationAppliedMode] = { 'frozen', 'job', 'none', 'traffic',  }

def check_calibration_applied_mode(value: str) -> CalibrationAppliedMode:
    if value in CALIBRATION_APPLIED_MODE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CALIBRATION_APPLIED_MODE_VALUES!r}")
