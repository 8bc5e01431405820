"""A write from request to stored row: the gates that run before any model sees a fact,
candidate search and the one classifier call of Level 2 (the pipeline), the dependent facts a
supersession queues for review (dependents), manual supersession (Level 1), and the
Idempotency-Key utility around a write.

Imports run one way: the write path uses `storage`, `access`, `classifiers`, `extractors`,
`embedders`, `metering`, `text_analysis` and `runtime`; only the composition root
(`service`) imports it.
"""
