from typing import Literal

ClassifyRequestTruncation = Literal['chunk', 'end', 'error', 'start']

CLASSIFY_REQUEST_TRUNCATION_VALUES: set[ClassifyRequestTruncation] = { 'chunk', 'end', 'error', 'start',  }

def check_classify_request_truncation(value: str) -> ClassifyRequestTruncation:
    if value in CLASSIFY_REQUEST_TRUNCATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLASSIFY_REQUEST_TRUNCATION_VALUES!r}")
