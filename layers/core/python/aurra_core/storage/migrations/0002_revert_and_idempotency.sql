-- Reverts and idempotent requests.

-- A revert event names the supersession it undid; the unique index makes "already reverted"
-- a fact the database enforces, even for two reverts racing each other.
ALTER TABLE audit_events ADD COLUMN reverts_event_id uuid;
CREATE UNIQUE INDEX audit_events_one_revert ON audit_events (reverts_event_id) WHERE reverts_event_id IS NOT NULL;

-- Idempotency-Key records (one row per tenant, operation and key). Not facts: these expire.
CREATE TABLE idempotency_records (
    idempotency_key     text PRIMARY KEY,
    status              text NOT NULL,
    expiry              bigint NOT NULL,          -- epoch seconds
    in_progress_expiry  bigint,                   -- epoch milliseconds
    payload_hash        text,
    response_data       text,
    created_at          timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX idempotency_records_expiry ON idempotency_records (expiry);
