from typing import Literal

ClassifyRequestChunkAggregation = Literal['max', 'mean']

CLASSIFY_REQUEST_CHUNK_AGGREGATION_VALUES: set[ClassifyRequestChunkAggregation] = { 'max', 'mean',  }

def check_classify_request_chunk_aggregation(value: str) -> ClassifyRequestChunkAggregation:
    if value in CLASSIFY_REQUEST_CHUNK_AGGREGATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLASSIFY_REQUEST_CHUNK_AGGREGATION_VALUES!r}")
