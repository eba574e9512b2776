from typing import Literal

PromptCacheOptionsTtl = Literal['30m']

PROMPT_CACHE_OPTIONS_TTL_VALUES: set[PromptCacheOptionsTtl] = { '30m',  }

def check_prompt_cache_options_ttl(value: str) -> PromptCacheOptionsTtl:
    if value in PROMPT_CACHE_OPTIONS_TTL_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PROMPT_CACHE_OPTIONS_TTL_VALUES!r}")
