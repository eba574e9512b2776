from typing import Literal

JobResultsFormat = Literal['json', 'jsonl']

JOB_RESULTS_FORMAT_VALUES: set[JobResultsFormat] = { 'json', 'jsonl',  }

def check_job_results_format(value: str) -> JobResultsFormat:
    if value in JOB_RESULTS_FORMAT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_RESULTS_FORMAT_VALUES!r}")
