"""Model sequences in, model rows out: tokenization, the engine (de-duplicate, sort, micro-batches, pad, run)
and the adaptive batcher that merges concurrent requests' sequences into engine calls. The batcher drives
the engine itself and owns the wrapping of its failures and metrics: nothing here calls up."""
