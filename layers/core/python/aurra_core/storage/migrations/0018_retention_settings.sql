-- Retention periods, per key (settings belong to keys): how long a memory is kept at all
-- (memory_retention_days) and how long what is no longer current is kept
-- (history_retention_days). Null: forever. The maintenance job applies the shortest period
-- of a tenant's keys that are not revoked, through an erasure with its receipt.
-- Nullable columns without a default: no row is rewritten, existing keys keep everything.
ALTER TABLE key_settings
    ADD COLUMN history_retention_days integer CHECK (history_retention_days >= 1),
    ADD COLUMN memory_retention_days integer CHECK (memory_retention_days >= 1);
