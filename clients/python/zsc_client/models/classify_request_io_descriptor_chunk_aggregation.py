from typing import Literal

ClassifyRequestIODescriptorChunkAggregation = Literal['max', 'mean']

CLASSIFY_REQUEST_IO_DESCRIPTOR_CHUNK_AGGREGATION_VALUES: set[ClassifyRequestIODescriptorChunkAggregation] = { 'max', 'mean',  }

def check_classify_request_io_descriptor_chunk_aggregation(value: str) -> ClassifyRequestIODescriptorChunkAggregation:
    if value in CLASSIFY_REQUEST_IO_DESCRIPTOR_CHUNK_AGGREGATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLASSIFY_REQUEST_IO_DESCRIPTOR_CHUNK_AGGREGATION_VALUES!r}")
