"""The bi-temporal store on PostgreSQL: connections and IAM logins, versioned migrations, the
store's writes and reads on both time axes, pagination cursors, identifiers, the
Idempotency-Key record bound to a writing transaction, and large tenants' own HNSW indexes.

Imports run one way: storage uses `runtime`, `text_analysis`, `embedders`, `metering`,
`models` and `errors`, never the write path or the API.
"""
