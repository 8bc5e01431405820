"""A write from request to stored row: the gates that run before any model sees a fact,
candidate search and the one classifier call of Level 2 (the pipeline), manual
supersession (Level 1), and Idempotency-Key claims bound to the writing transaction.

Imports run one way: the write path uses `storage`, `access`, `classifiers`, `extractors`,
`embedders`, `metering` and `runtime`; only the composition root (`service`) imports it."""
