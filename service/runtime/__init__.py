"""What changes while a replica serves: its models (``models``: loaded, replaced, unloaded, retired, kept in
step with a models file). Construction is ``service.build``'s; routes are the HTTP layer's."""
