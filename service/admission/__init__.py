"""Who gets in: the one place a request is taken in, or refused for the replica's capacity.

``gate.Admission`` holds the hard bound (ZSC_MAX_CONCURRENCY) and a learned limit per served model
(``limit.AdaptiveLimit``, against ZSC_TARGET_LATENCY_MS), words the refusals and says when to retry. The
HTTP edge calls ``enter``/``leave`` once a request's body has been read; the model registry calls
``models`` for the models a call uses. Nothing here knows HTTP.
"""
