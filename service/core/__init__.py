"""Pure types and maths, no model and no framework: what a model is (``model_spec``), what one
classification asks for and its score maths (``task``, ``scoring``), micro-batch planning and padding
(``microbatch``), long texts in windows (``windows``), scripts and languages (``languages``)."""
