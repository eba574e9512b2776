"""Zero-shot text classification service (BentoML): NLI cross-encoders and embedding bi-encoders."""

__version__ = "0.1.0"
