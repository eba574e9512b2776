"""``zsc``, the project's command line: model import and store housekeeping (``main``), evaluate and tune
(``evaluate``)."""
