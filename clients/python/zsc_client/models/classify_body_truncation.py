from typing import Literal

ClassifyBodyTruncation = Literal['chunk', 'end', 'error', 'start']

CLASSIFY_BODY_TRUNCATION_VALUES: set[ClassifyBodyTruncation] = { 'chunk', 'end', 'error', 'start',  }

def check_classify_body_truncation(value: str) -> ClassifyBodyTruncation:
    if value in CLASSIFY_BODY_TRUNCATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLASSIFY_BODY_TRUNCATION_VALUES!r}")
