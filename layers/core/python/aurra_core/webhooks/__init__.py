"""Webhooks: a key's endpoints (the `webhooks` setting), Standard Webhooks signatures, and the
delivery of the change stream's events to them: fanned out from the outbox, at least once, in
order per memory, retried with backoff and jitter, then dead-lettered; and, in AWS, the stage's event bus
(`event_bus.py`) and the dispatcher that drives both from a schedule (`dispatcher.py`).

Imports run one way: webhooks uses `storage`, `models`, `errors` and `runtime`; `access` (its
peer on the map) uses it for the setting.
"""
