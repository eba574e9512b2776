"""Accuracy on labelled data: reading it (``labelled``), scoring a service's answers (``evaluation``) and
tuning wording and thresholds into a label set (``tuning``). Used by ``zsc evaluate`` / ``zsc tune``; never
imported by the serving process."""
