from typing import Literal

JobResultsPageState = Literal['cancelled', 'done', 'queued', 'running']

JOB_RESULTS_PAGE_STATE_VALUES: set[JobResultsPageState] = { 'cancelled', 'done', 'queued', 'running',  }

def check_job_results_page_state(value: str) -> JobResultsPageState:
    if value in JOB_RESULTS_PAGE_STATE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_RESULTS_PAGE_STATE_VALUES!r}")
