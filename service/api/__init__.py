"""The API's request and response models: types, limits, messages and examples in one place (``classify``:
/classify, /classify_batch, the Hugging Face shape; ``jobs``: the jobs API; ``documents``: the other answers'
shapes; ``validation``: a validation error in the API's own words). No HTTP, no model."""
