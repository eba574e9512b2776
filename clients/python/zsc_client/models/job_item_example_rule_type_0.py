from typing import Literal

JobItemExampleRuleType0 = Literal['blend', 'nearest', 'prototype']

JOB_ITEM_EXAMPLE_RULE_TYPE_0_VALUES: set[JobItemExampleRuleType0] = { 'blend', 'nearest', 'prototype',  }

def check_job_item_example_rule_type_0(value: str) -> JobItemExampleRuleType0:
    if value in JOB_ITEM_EXAMPLE_RULE_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_ITEM_EXAMPLE_RULE_TYPE_0_VALUES!r}")
