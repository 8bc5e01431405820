-- The review queue, the event that retired a memory, and per-key budgets of model calls.

-- Which audit event superseded this version of a memory ("why was this retired?"). A version
-- carries it, so every point of transaction time answers with the event believed then: a
-- supersession that was later reverted shows at a known_at in between, and null after.
ALTER TABLE memory_versions ADD COLUMN superseded_event_id uuid;
ALTER TABLE memory_versions ADD CONSTRAINT memory_versions_superseded_event
    CHECK (superseded_event_id IS NULL OR superseded_by IS NOT NULL);

-- Versions recorded before this column existed learn their event once, here: the latest
-- supersession of the same pair recorded no later than the version. Only this migration may
-- write to a closed version, so the append-only trigger steps aside for it alone.
ALTER TABLE memory_versions DISABLE TRIGGER memory_versions_close_only;
UPDATE memory_versions v SET superseded_event_id = (
    SELECT e.id FROM audit_events e
    WHERE e.tenant_id = v.tenant_id AND e.superseded_id = v.memory_id AND e.memory_id = v.superseded_by
      AND e.type IN ('auto_supersede', 'manual_supersede') AND e.created_at <= v.recorded_at
    ORDER BY e.created_at DESC, e.id DESC LIMIT 1)
WHERE v.superseded_by IS NOT NULL;
ALTER TABLE memory_versions ENABLE TRIGGER memory_versions_close_only;

-- Proposals and their resolutions. A proposal's status is never stored: it is whichever
-- approval or dismissal names it in resolves_event_id (or open while none does). The unique
-- index makes "resolved once" a fact the database enforces, even for two racing approvals.
ALTER TABLE audit_events DROP CONSTRAINT audit_events_type_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_type_check CHECK (type IN (
    'auto_supersede', 'manual_supersede', 'duplicate_rejected', 'revert', 'settings_updated',
    'supersession_proposed', 'proposal_approved', 'proposal_dismissed'));
ALTER TABLE audit_events ADD COLUMN resolves_event_id uuid;
CREATE UNIQUE INDEX audit_events_one_resolution ON audit_events (resolves_event_id)
    WHERE resolves_event_id IS NOT NULL;
-- The queue and every other type filter: a tenant's events of one type, newest first.
CREATE INDEX audit_events_tenant_type_time ON audit_events (tenant_id, type, created_at DESC, id DESC);

-- Settings: below min_confidence, a contradiction at or above proposal_min_confidence is
-- proposed for review (null: never); daily_model_calls_limit caps model calls per UTC day
-- (null: no cap). Keys that exist already get the defaults.
ALTER TABLE key_settings ADD COLUMN proposal_min_confidence double precision DEFAULT 0.5;
ALTER TABLE key_settings ADD CONSTRAINT key_settings_proposal_min_confidence CHECK (
    proposal_min_confidence IS NULL
    OR (proposal_min_confidence >= 0 AND proposal_min_confidence < min_confidence));
ALTER TABLE key_settings ADD COLUMN daily_model_calls_limit integer
    CHECK (daily_model_calls_limit IS NULL OR daily_model_calls_limit >= 0);

-- Model calls per key and UTC day. Not facts: a counter that one conditional statement moves.
CREATE TABLE model_call_counts (
    api_key_id  uuid NOT NULL REFERENCES api_keys (id),
    day         date NOT NULL,
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    calls       integer NOT NULL CHECK (calls >= 0),
    PRIMARY KEY (api_key_id, day)
);
GRANT SELECT, INSERT, UPDATE (calls) ON model_call_counts TO aurra_app;
ALTER TABLE model_call_counts ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON model_call_counts TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());
