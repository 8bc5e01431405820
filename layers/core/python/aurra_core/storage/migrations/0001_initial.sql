-- Aurra schema, version 1.
-- Facts and audit events are append-only. The one change the database allows to a
-- memory version is closing its transaction time (recorded_to: NULL -> a time), which is
-- how a bi-temporal store says "from then on we believed something else".

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE tenants (
    id          uuid PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE api_keys (
    id           uuid PRIMARY KEY,
    tenant_id    uuid NOT NULL REFERENCES tenants (id),
    lookup       text NOT NULL UNIQUE,
    secret_hash  text NOT NULL,
    name         text,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    revoked_at   timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id);

-- Per-key settings, one row per version; the newest version is in force.
CREATE TABLE key_settings (
    api_key_id              uuid NOT NULL REFERENCES api_keys (id),
    version                 integer NOT NULL,
    tenant_id               uuid NOT NULL REFERENCES tenants (id),
    auto_supersede_default  boolean NOT NULL,
    excluded_categories     text[] NOT NULL,
    min_confidence          double precision NOT NULL CHECK (min_confidence >= 0.85 AND min_confidence <= 1.0),
    classifier_model        text NOT NULL,
    recorded_at             timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (api_key_id, version)
);

CREATE TABLE memory_versions (
    version_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    memory_id      uuid NOT NULL,
    tenant_id      uuid NOT NULL REFERENCES tenants (id),
    content        text NOT NULL,
    topic          text NOT NULL CHECK (topic ~ '^[a-z0-9_]{1,64}$'),
    metadata       jsonb NOT NULL DEFAULT '{}'::jsonb,
    embedding      vector({{embedding_dim}}) NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz,
    superseded_by  uuid,
    supersedes     uuid,
    recorded_at    timestamptz NOT NULL,
    recorded_to    timestamptz,
    CHECK (valid_to IS NULL OR valid_to >= valid_from),
    CHECK (recorded_to IS NULL OR recorded_to >= recorded_at),
    CHECK (superseded_by IS NULL OR superseded_by <> memory_id)
);
-- At most one believed version per memory at any moment of transaction time.
CREATE UNIQUE INDEX memory_versions_believed ON memory_versions (memory_id) WHERE recorded_to IS NULL;
-- Listing: the tenant's memories newest first, by id (UUIDv7 is time ordered).
CREATE INDEX memory_versions_tenant_memory ON memory_versions (tenant_id, memory_id DESC, recorded_at);
-- Exact candidate search for ordinary tenants: their current memories only.
CREATE INDEX memory_versions_tenant_current ON memory_versions (tenant_id, topic)
    WHERE recorded_to IS NULL AND valid_to IS NULL;
-- Approximate candidate search for large tenants (iterative scan keeps filtered recall).
CREATE INDEX memory_versions_embedding_current ON memory_versions
    USING hnsw (embedding vector_cosine_ops) WHERE recorded_to IS NULL AND valid_to IS NULL;
CREATE INDEX memory_versions_lineage_by ON memory_versions (superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX memory_versions_lineage_of ON memory_versions (supersedes) WHERE supersedes IS NOT NULL;

CREATE TABLE audit_events (
    id                   uuid PRIMARY KEY,
    tenant_id            uuid NOT NULL REFERENCES tenants (id),
    type                 text NOT NULL CHECK (type IN ('auto_supersede', 'manual_supersede',
                             'duplicate_rejected', 'revert', 'settings_updated')),
    created_at           timestamptz NOT NULL,
    api_key_id           uuid,
    memory_id            uuid,
    superseded_id        uuid,
    classifier           text,
    confidence           double precision CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
    reason               text,
    model                text,
    candidates_examined  integer,
    details              jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_events_tenant_time ON audit_events (tenant_id, created_at DESC, id DESC);
CREATE INDEX audit_events_memory ON audit_events (tenant_id, memory_id);
CREATE INDEX audit_events_superseded ON audit_events (tenant_id, superseded_id);

-- The database itself keeps facts and audit events append-only.
CREATE FUNCTION aurra_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'aurra: % on % is not allowed: rows are append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE FUNCTION aurra_memory_version_close_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.recorded_to IS NULL AND NEW.recorded_to IS NOT NULL
       AND (to_jsonb(NEW) - 'recorded_to') = (to_jsonb(OLD) - 'recorded_to') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'aurra: a memory version can only have its transaction time closed, once'
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION aurra_refuse_change();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION aurra_refuse_change();
CREATE TRIGGER memory_versions_no_delete BEFORE DELETE ON memory_versions
    FOR EACH ROW EXECUTE FUNCTION aurra_refuse_change();
CREATE TRIGGER memory_versions_no_truncate BEFORE TRUNCATE ON memory_versions
    FOR EACH STATEMENT EXECUTE FUNCTION aurra_refuse_change();
CREATE TRIGGER memory_versions_close_only BEFORE UPDATE ON memory_versions
    FOR EACH ROW EXECUTE FUNCTION aurra_memory_version_close_only();
CREATE TRIGGER key_settings_append_only BEFORE UPDATE OR DELETE ON key_settings
    FOR EACH ROW EXECUTE FUNCTION aurra_refuse_change();
