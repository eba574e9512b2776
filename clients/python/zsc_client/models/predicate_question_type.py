from typing import Literal

PredicateQuestionType = Literal['predicate']

PREDICATE_QUESTION_TYPE_VALUES: set[PredicateQuestionType] = { 'predicate',  }

def check_predicate_question_type(value: str) -> PredicateQuestionType:
    if value in PREDICATE_QUESTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PREDICATE_QUESTION_TYPE_VALUES!r}")
