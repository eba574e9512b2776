from typing import Literal

ClassifyRequestCalibrationType0 = Literal['none', 'traffic']

CLASSIFY_REQUEST_CALIBRATION_TYPE_0_VALUES: set[ClassifyRequestCalibrationType0] = { 'none', 'traffic',  }

def check_classify_request_calibration_type_0(value: str) -> ClassifyRequestCalibrationType0:
    if value in CLASSIFY_REQUEST_CALIBRATION_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLASSIFY_REQUEST_CALIBRATION_TYPE_0_VALUES!r}")
