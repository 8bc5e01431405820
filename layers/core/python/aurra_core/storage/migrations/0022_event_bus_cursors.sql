-- The change stream on the stage's EventBridge bus: how far the dispatcher has published each
-- tenant's events (its `seq`, migration 0019). Only the dispatcher reads and moves it, as the
-- owner role, as it does the webhook cursors; the service role has no grant on it.
CREATE TABLE event_bus_cursors (
    tenant_id   uuid PRIMARY KEY REFERENCES tenants (id),
    last_seq    bigint NOT NULL
);
ALTER TABLE event_bus_cursors ENABLE ROW LEVEL SECURITY;
