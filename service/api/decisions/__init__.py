"""OpenAI's Decisions API, laid out as vLLM lays out its own: ``protocol`` (the request and answer models),
``adapters`` (what the model reads, and the answers built back)."""
