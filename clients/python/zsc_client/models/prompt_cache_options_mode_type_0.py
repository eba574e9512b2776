from typing import Literal

PromptCacheOptionsModeType0 = Literal['explicit', 'implicit']

PROMPT_CACHE_OPTIONS_MODE_TYPE_0_VALUES: set[PromptCacheOptionsModeType0] = { 'explicit', 'implicit',  }

def check_prompt_cache_options_mode_type_0(value: str) -> PromptCacheOptionsModeType0:
    if value in PROMPT_CACHE_OPTIONS_MODE_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PROMPT_CACHE_OPTIONS_MODE_TYPE_0_VALUES!r}")
