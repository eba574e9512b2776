from typing import Literal

JobSubmissionExampleRuleType0 = Literal['blend', 'nearest', 'prototype']

JOB_SUBMISSION_EXAMPLE_RULE_TYPE_0_VALUES: set[JobSubmissionExampleRuleType0] = { 'blend', 'nearest', 'prototype',  }

def check_job_submission_example_rule_type_0(value: str) -> JobSubmissionExampleRuleType0:
    if value in JOB_SUBMISSION_EXAMPLE_RULE_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_SUBMISSION_EXAMPLE_RULE_TYPE_0_VALUES!r}")
