-- Provenance: where each memory came from.
--
-- A messages write records, for each fact it extracted, the conversation (the client's id, or
-- one Aurra generated), the 0-based indexes of the messages the fact came from and the quoted
-- span; a content write may name its source (type, id, an optional URI). A memory's versions
-- all carry the source of the write that created the memory (a revision copies it).
--
-- Nullable columns without a default: PostgreSQL records them in the catalog and rewrites no
-- row; existing memories read as "no source" (null). The indexes are partial (only rows with
-- a source), the filters of GET /agent/memories and GET /agent/audit and an erasure's
-- selectors; building them reads the table once and holds writes to it meanwhile (a few
-- seconds at a million versions).

ALTER TABLE memory_versions
    ADD COLUMN source_type             text,
    ADD COLUMN source_id               text,
    ADD COLUMN source_uri              text,
    ADD COLUMN conversation_id         text,
    ADD COLUMN source_message_indexes  integer[],
    ADD COLUMN source_quote            text;

CREATE INDEX memory_versions_conversation ON memory_versions (tenant_id, conversation_id)
    WHERE conversation_id IS NOT NULL;
CREATE INDEX memory_versions_source ON memory_versions (tenant_id, source_id)
    WHERE source_id IS NOT NULL;

-- An event recorded by a write names that write's conversation and source, so the audit
-- trail filters by them as it does by user.
ALTER TABLE audit_events ADD COLUMN conversation_id text, ADD COLUMN source_id text;
CREATE INDEX audit_events_tenant_conversation_time
    ON audit_events (tenant_id, conversation_id, created_at DESC, id DESC) WHERE conversation_id IS NOT NULL;
CREATE INDEX audit_events_tenant_source_time
    ON audit_events (tenant_id, source_id, created_at DESC, id DESC) WHERE source_id IS NOT NULL;
