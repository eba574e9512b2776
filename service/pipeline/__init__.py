"""Validated requests in, answers out: the one path every endpoint and the job worker take (``Pipeline``).

``label_sets`` resolves a named set, ``prepare`` turns a request into a task (windows, limits, warnings),
``scorer`` looks every model row up in the cache tiers (``cache``) and sends only the missing sequences to
the batcher, then scores; ``answer`` ranks and decides. No HTTP, no BentoML."""
