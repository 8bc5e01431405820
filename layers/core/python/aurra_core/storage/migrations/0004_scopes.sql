-- Scopes inside a tenant: the end user and the agent a memory belongs to.
--
-- Nullable columns without a default: PostgreSQL records them in the catalog and rewrites no
-- row, so existing memories and events keep every byte and read as "no scope" (NULL). The
-- checks are NOT VALID for the same reason: every existing row holds NULL, so there is
-- nothing to validate, and new rows are checked as they are written.

ALTER TABLE memory_versions ADD COLUMN user_id text, ADD COLUMN agent_id text;
ALTER TABLE memory_versions
    ADD CONSTRAINT memory_versions_user_id_format
        CHECK (user_id ~ '^[A-Za-z0-9._:@-]{1,128}$') NOT VALID,
    ADD CONSTRAINT memory_versions_agent_id_format
        CHECK (agent_id ~ '^[A-Za-z0-9._:@-]{1,128}$') NOT VALID;

-- The exact candidate search and the scope's size check: a scope's current memories. It
-- leads with the tenant, so it also serves everything the (tenant_id, topic) index served.
CREATE INDEX memory_versions_scope_current ON memory_versions (tenant_id, user_id, agent_id, topic)
    WHERE recorded_to IS NULL AND valid_to IS NULL;
DROP INDEX memory_versions_tenant_current;

-- An audit event belongs to the user of its memory (memory_id), for GET /agent/audit?user_id=.
ALTER TABLE audit_events ADD COLUMN user_id text;
CREATE INDEX audit_events_tenant_user_time ON audit_events (tenant_id, user_id, created_at DESC, id DESC)
    WHERE user_id IS NOT NULL;
