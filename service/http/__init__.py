"""The HTTP surface: the BentoML service class (``app``), the routes beside its APIs (``routes``, ``jobs``),
the edge middleware (``middleware``, ``auth``), the OpenAPI document (``openapi``) and the one mapping from
errors to statuses and bodies (``errors``). Everything below it is given to it by ``service.build``."""
