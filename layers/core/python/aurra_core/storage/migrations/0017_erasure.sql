-- Erasure: the one way content leaves the store.
--
-- Facts and audit events stay append-only for every ordinary statement: the database still
-- refuses an UPDATE of a memory's content, a DELETE of a version, an UPDATE of an event. An
-- erasure goes through one function, aurra_erase (SECURITY DEFINER, as the tables' owner),
-- which the service role may call for the tenant its transaction names and no other. It
--   1. records a tombstone of each erased version (ids, lineage, both time axes, the scope
--      and source ids; no content, metadata, embedding, quote, URI or topic), then deletes the
--      version: the memory_versions trigger lets a DELETE through only for a version whose
--      tombstone this same erasure has just recorded (the session flag aurra.erasure_id, which
--      the function sets for its own statements and clears again);
--   2. scrubs the audit events about the erased memories (reason null, details cut down to
--      the content-free keys of aurra_content_free_details and marked erased): the audit
--      trigger lets through exactly that change, under the same flag, to an event naming a
--      memory this erasure tombstoned, and nothing else;
--   3. deletes the Idempotency-Key records whose stored response names an erased memory (all
--      of the tenant's, for a whole-tenant erasure).
-- The service role gets no UPDATE or DELETE right on any of these tables, and no INSERT on
-- tombstones: only the function writes them. Receipts (erasures) are append-only.

-- What an erased version leaves behind.
CREATE TABLE memory_tombstones (
    version_id              bigint PRIMARY KEY,
    memory_id               uuid NOT NULL,
    tenant_id               uuid NOT NULL REFERENCES tenants (id),
    valid_from              timestamptz NOT NULL,
    valid_to                timestamptz,
    superseded_by           uuid,
    supersedes              uuid,
    superseded_event_id     uuid,
    recorded_at             timestamptz NOT NULL,
    recorded_to             timestamptz,
    user_id                 text,
    agent_id                text,
    source_type             text,
    source_id               text,
    conversation_id         text,
    source_message_indexes  integer[],
    erasure_id              uuid NOT NULL,
    erased_at               timestamptz NOT NULL
);
CREATE INDEX memory_tombstones_memory ON memory_tombstones (tenant_id, memory_id);
CREATE INDEX memory_tombstones_erasure ON memory_tombstones (erasure_id);

-- The receipts: what an erasure selected, when, and how many records of each kind it touched.
CREATE TABLE erasures (
    id          uuid PRIMARY KEY,
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    api_key_id  uuid,
    selector    jsonb NOT NULL,
    counts      jsonb NOT NULL,
    created_at  timestamptz NOT NULL
);
-- "The same selector again": the tenant's latest receipt of a selector.
CREATE INDEX erasures_tenant_selector ON erasures (tenant_id, selector, created_at DESC);

-- Idempotency-Key records learn their tenant, so a whole-tenant erasure finds every one.
-- (Records written before carry none; an erasure finds those by the memory ids they name.)
ALTER TABLE idempotency_records ADD COLUMN tenant_id uuid;
CREATE INDEX idempotency_records_tenant ON idempotency_records (tenant_id) WHERE tenant_id IS NOT NULL;

ALTER TABLE audit_events DROP CONSTRAINT audit_events_type_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_type_check CHECK (type IN (
    'auto_supersede', 'manual_supersede', 'duplicate_rejected', 'revert', 'settings_updated',
    'supersession_proposed', 'proposal_approved', 'proposal_dismissed', 'erasure'));

-- The keys of an event's details that never hold content (a receipt's usage, the decision's
-- reason for not acting, ids of other events, the classifier's and extractor's names, the
-- message index): an erased event keeps these and nothing else, marked erased.
CREATE FUNCTION aurra_content_free_details(details jsonb, erasure uuid) RETURNS jsonb
    LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_object_agg(key, value), '{}'::jsonb)
           || jsonb_build_object('erased', true, 'erasure_id', erasure)
    FROM jsonb_each(details)
    WHERE key IN ('usage', 'not_acted_reason', 'backdated', 'mode', 'reverted_event_id', 'reverted_type',
                  'proposal_event_id', 'prompt_version', 'provider', 'classifier', 'verdicts_returned',
                  'verdicts_kept', 'extractor', 'extraction_model', 'message_index')
$$;

-- The erasure in progress in this transaction, if any (set only by aurra_erase).
CREATE FUNCTION aurra_erasure_in_progress() RETURNS uuid LANGUAGE sql STABLE AS $$
    SELECT nullif(current_setting('aurra.erasure_id', true), '')::uuid
$$;

-- A version may be deleted only once this erasure has recorded its tombstone.
CREATE FUNCTION aurra_memory_version_erase_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM memory_tombstones
               WHERE version_id = OLD.version_id AND erasure_id = aurra_erasure_in_progress()) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'aurra: % on % is not allowed: rows are append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
DROP TRIGGER memory_versions_no_delete ON memory_versions;
CREATE TRIGGER memory_versions_erase_only BEFORE DELETE ON memory_versions
    FOR EACH ROW EXECUTE FUNCTION aurra_memory_version_erase_only();

-- An event may change only by this erasure's scrub of it: reason gone, details cut to their
-- content-free keys, nothing else touched, and only an event naming a memory it tombstoned.
CREATE FUNCTION aurra_audit_event_scrub_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    erasure uuid := aurra_erasure_in_progress();
BEGIN
    IF TG_OP = 'UPDATE' AND erasure IS NOT NULL
       AND NEW.reason IS NULL
       AND NEW.details = aurra_content_free_details(OLD.details, erasure)
       AND (to_jsonb(NEW) - 'reason' - 'details') = (to_jsonb(OLD) - 'reason' - 'details')
       AND EXISTS (SELECT 1 FROM memory_tombstones
                   WHERE erasure_id = erasure AND tenant_id = OLD.tenant_id
                     AND memory_id IN (OLD.memory_id, OLD.superseded_id)) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'aurra: % on % is not allowed: rows are append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
DROP TRIGGER audit_events_append_only ON audit_events;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION aurra_audit_event_scrub_only();

CREATE TRIGGER memory_tombstones_append_only BEFORE UPDATE OR DELETE ON memory_tombstones
    FOR EACH ROW EXECUTE FUNCTION aurra_refuse_change();
CREATE TRIGGER memory_tombstones_no_truncate BEFORE TRUNCATE ON memory_tombstones
    FOR EACH STATEMENT EXECUTE FUNCTION aurra_refuse_change();
CREATE TRIGGER erasures_append_only BEFORE UPDATE OR DELETE ON erasures
    FOR EACH ROW EXECUTE FUNCTION aurra_refuse_change();
CREATE TRIGGER erasures_no_truncate BEFORE TRUNCATE ON erasures
    FOR EACH STATEMENT EXECUTE FUNCTION aurra_refuse_change();

-- The erasure itself. `memories`: memories erased whole (every version); `versions`: single
-- versions besides (the history a retention period ends); `whole_tenant`: every memory of the
-- tenant, and every Idempotency-Key record of it. Returns the count of each kind of record.
CREATE FUNCTION aurra_erase(erasure uuid, for_tenant uuid, memories uuid[], versions bigint[],
                            whole_tenant boolean)
    RETURNS TABLE (erased_memories bigint, erased_versions bigint, scrubbed_events bigint,
                   scrubbed_proposals bigint, deleted_records bigint)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    erased_now timestamptz := clock_timestamp();
    gone uuid[];
BEGIN
    IF erasure IS NULL OR for_tenant IS NULL OR for_tenant IS DISTINCT FROM aurra_current_tenant() THEN
        RAISE EXCEPTION 'aurra: an erasure acts on the tenant its transaction names, and on no other'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM set_config('aurra.erasure_id', erasure::text, true);

    INSERT INTO memory_tombstones (version_id, memory_id, tenant_id, valid_from, valid_to, superseded_by,
        supersedes, superseded_event_id, recorded_at, recorded_to, user_id, agent_id, source_type,
        source_id, conversation_id, source_message_indexes, erasure_id, erased_at)
    SELECT version_id, memory_id, tenant_id, valid_from, valid_to, superseded_by, supersedes,
        superseded_event_id, recorded_at, recorded_to, user_id, agent_id, source_type, source_id,
        conversation_id, source_message_indexes, erasure, erased_now
    FROM memory_versions
    WHERE tenant_id = for_tenant
      AND (whole_tenant OR memory_id = ANY(memories) OR version_id = ANY(versions));
    GET DIAGNOSTICS erased_versions = ROW_COUNT;

    DELETE FROM memory_versions v USING memory_tombstones t
    WHERE t.erasure_id = erasure AND v.version_id = t.version_id AND v.tenant_id = for_tenant;

    -- The memories none of whose versions is left.
    gone := ARRAY(SELECT DISTINCT t.memory_id FROM memory_tombstones t
                  WHERE t.erasure_id = erasure
                    AND NOT EXISTS (SELECT 1 FROM memory_versions v
                                    WHERE v.tenant_id = for_tenant AND v.memory_id = t.memory_id));
    erased_memories := cardinality(gone);

    WITH scrubbed AS (
        UPDATE audit_events
        SET reason = NULL, details = aurra_content_free_details(details, erasure)
        WHERE tenant_id = for_tenant AND type <> 'erasure' AND NOT (details ? 'erased')
          AND (memory_id = ANY(gone) OR superseded_id = ANY(gone))
        RETURNING type
    )
    SELECT count(*) FILTER (WHERE type <> 'supersession_proposed'),
           count(*) FILTER (WHERE type = 'supersession_proposed')
    INTO scrubbed_events, scrubbed_proposals FROM scrubbed;

    WITH removed AS (
        DELETE FROM idempotency_records r
        WHERE (whole_tenant AND r.tenant_id = for_tenant)
           OR ((r.tenant_id = for_tenant OR r.tenant_id IS NULL) AND r.response_data IS NOT NULL
               AND cardinality(gone) > 0
               AND r.response_data LIKE ANY (ARRAY(SELECT '%' || g::text || '%' FROM unnest(gone) AS g)))
        RETURNING 1
    )
    SELECT count(*) INTO deleted_records FROM removed;

    PERFORM set_config('aurra.erasure_id', '', true);
    RETURN NEXT;
END;
$$;
REVOKE ALL ON FUNCTION aurra_erase(uuid, uuid, uuid[], bigint[], boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aurra_erase(uuid, uuid, uuid[], bigint[], boolean) TO aurra_app;

-- What the service reads: its tenant's tombstones (a read of an erased memory is a 410) and
-- receipts; it writes receipts, never tombstones.
GRANT SELECT ON memory_tombstones TO aurra_app;
GRANT SELECT, INSERT ON erasures TO aurra_app;
ALTER TABLE memory_tombstones ENABLE ROW LEVEL SECURITY;
ALTER TABLE erasures ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON memory_tombstones TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());
CREATE POLICY tenant_isolation ON erasures TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());
