from typing import Literal

ClassifyRequestExampleRuleType0 = Literal['blend', 'nearest', 'prototype']

CLASSIFY_REQUEST_EXAMPLE_RULE_TYPE_0_VALUES: set[ClassifyRequestExampleRuleType0] = { 'blend', 'nearest', 'prototype',  }

def check_classify_request_example_rule_type_0(value: str) -> ClassifyRequestExampleRuleType0:
    if value in CLASSIFY_REQUEST_EXAMPLE_RULE_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLASSIFY_REQUEST_EXAMPLE_RULE_TYPE_0_VALUES!r}")
