from typing import Literal

ClassifyBodyCalibrationType0 = Literal['none', 'traffic']

CLASSIFY_BODY_CALIBRATION_TYPE_0_VALUES: set[ClassifyBodyCalibrationType0] = { 'none', 'traffic',  }

def check_classify_body_calibration_type_0(value: str) -> ClassifyBodyCalibrationType0:
    if value in CLASSIFY_BODY_CALIBRATION_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLASSIFY_BODY_CALIBRATION_TYPE_0_VALUES!r}")
