"""Bulk jobs: a corpus submitted once, classified in the background, polled and fetched by id.

``POST /jobs`` cuts the items into chunks and queues them (``intake.py`` parses and validates the upload,
``items.py`` is what a stored item is); every replica's ``JobWorker`` (``worker.py``) takes chunks and runs
them through the same pipeline as interactive traffic (``Pipeline.classify``), yielding to it; results are
stored per chunk and read back in item order. Two stores with one interface (``store.py``): Redis Streams
with a consumer group across replicas (``redis_store.py``: a chunk is acknowledged only after its results
are stored, and a dying replica's chunks are claimed by another after ``ZSC_JOB_VISIBILITY_S``), or in-
process without Redis. The HTTP surface is ``service.http.jobs``; this package knows no HTTP.
"""
