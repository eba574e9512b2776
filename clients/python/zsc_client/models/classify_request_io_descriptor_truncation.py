from typing import Literal

ClassifyRequestIODescriptorTruncation = Literal['chunk', 'end', 'error', 'start']

CLASSIFY_REQUEST_IO_DESCRIPTOR_TRUNCATION_VALUES: set[ClassifyRequestIODescriptorTruncation] = { 'chunk', 'end', 'error', 'start',  }

def check_classify_request_io_descriptor_truncation(value: str) -> ClassifyRequestIODescriptorTruncation:
    if value in CLASSIFY_REQUEST_IO_DESCRIPTOR_TRUNCATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLASSIFY_REQUEST_IO_DESCRIPTOR_TRUNCATION_VALUES!r}")
