"""Aurra's domain core: the shared Lambda layer behind every handler.

One folder a capability; imports run down this list, never up it:

- `service`: the composition root. Each handler makes one call here, and it wires the parts.
- `api/`: what every HTTP handler shares: the resolver, the caller, the error envelope.
- `level2_jobs/`: asynchronous Level 2's runners: claiming a job (with a lease), deciding it
  through `write_path`, the nudges after a write and the sweeper of jobs whose nudge was lost.
- `write_path/`: a write from request to stored row: gates, candidates, one classifier call,
  supersession (Levels 1 and 2), Idempotency-Key.
- `access/`: tenants, API keys and their settings, the key check, key administration.
- `webhooks/`: (beside `access`) a key's webhooks, their signatures, delivering the change stream.
- `storage/`: PostgreSQL: connections, migrations, the bi-temporal store and its reads,
  cursors, large tenants' own indexes.
- `classifiers/`, `extractors/`, `embedders/`: ports and adapters (a protocol, real
  implementations, a factory) for the supersession verdict, fact extraction and vectors.
- `metering/`: what a model call cost, receipts and daily budgets.
- `models`, `request_json`, `errors`: the API's shapes, what a body may hold, domain errors.
- `text_analysis/`: normalisation, stems, lexicons and stored regex programs (plain code).
- `runtime/`: configuration, the Level 2 flag, Logger/Tracer/Metrics, Powertools glue.
"""
