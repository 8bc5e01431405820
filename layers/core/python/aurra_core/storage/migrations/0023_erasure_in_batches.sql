-- Large erasures in batches: each batch its own transaction, holding the tenant's write lock
-- only for as long as it takes, the erasure resumable after a crash between batches.
--
-- An erasure whose selection is larger than one batch first records what it selected (the
-- memory ids, as of its start under the tenant's exclusive write lock) in erasure_pending and
-- its progress in erasures_running, and commits; each batch then erases the next memories of
-- that list with aurra_erase, deletes them from the list and adds its counts to the progress;
-- the last one records the receipt (erasures, append-only) and the `erasure` audit event, and
-- deletes the progress. A retry of the same selector, or the maintenance job, completes a run
-- that stopped between batches. The lists hold ids only, never content.

CREATE TABLE erasures_running (
    id              uuid PRIMARY KEY,   -- the erasure's id: its tombstones' and its receipt's
    tenant_id       uuid NOT NULL REFERENCES tenants (id),
    api_key_id      uuid,
    selector        jsonb NOT NULL,
    created_at      timestamptz NOT NULL,
    counts          jsonb NOT NULL,     -- what the batches so far erased
    tenant_records  timestamptz,        -- a whole-tenant erasure: its start; the records before it go at the end
    event_scope     jsonb NOT NULL      -- the `erasure` audit event's memory_id, user_id, ... filters
);
CREATE INDEX erasures_running_tenant_selector ON erasures_running (tenant_id, selector);

CREATE TABLE erasure_pending (
    erasure_id  uuid NOT NULL REFERENCES erasures_running (id) ON DELETE CASCADE,
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    memory_id   uuid NOT NULL,
    PRIMARY KEY (erasure_id, memory_id)
);

GRANT SELECT, INSERT, UPDATE, DELETE ON erasures_running TO aurra_app;
GRANT SELECT, INSERT, DELETE ON erasure_pending TO aurra_app;
ALTER TABLE erasures_running ENABLE ROW LEVEL SECURITY;
ALTER TABLE erasure_pending ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON erasures_running TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());
CREATE POLICY tenant_isolation ON erasure_pending TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());

-- aurra_erase, called once per batch with the same erasure id: each call now counts and acts
-- on what it tombstoned itself (the versions it deleted, the memories it left without one), not
-- on every tombstone of the erasure so far. Its last parameter no longer erases every version
-- of the tenant (a whole-tenant erasure passes the memories it selected at its start, so a
-- write that lands during a batched run stays): it deletes the tenant's Idempotency-Key records
-- created up to that time (a whole-tenant erasure's start; null: none), which the last batch of a
-- whole-tenant erasure asks for.
DROP FUNCTION aurra_erase(uuid, uuid, uuid[], bigint[], boolean);
CREATE FUNCTION aurra_erase(erasure uuid, for_tenant uuid, memories uuid[], versions bigint[],
                            tenant_records_to timestamptz)
    RETURNS TABLE (erased_memories bigint, erased_versions bigint, scrubbed_events bigint,
                   scrubbed_proposals bigint, deleted_records bigint)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    erased_now timestamptz := clock_timestamp();
    tombstoned bigint[];
    touched uuid[];
    gone uuid[];
BEGIN
    IF erasure IS NULL OR for_tenant IS NULL OR for_tenant IS DISTINCT FROM aurra_current_tenant() THEN
        RAISE EXCEPTION 'aurra: an erasure acts on the tenant its transaction names, and on no other'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM set_config('aurra.erasure_id', erasure::text, true);

    WITH recorded AS (
        INSERT INTO memory_tombstones (version_id, memory_id, tenant_id, valid_from, valid_to, superseded_by,
            supersedes, superseded_event_id, recorded_at, recorded_to, user_id, agent_id, source_type,
            source_id, conversation_id, source_message_indexes, erasure_id, erased_at)
        SELECT version_id, memory_id, tenant_id, valid_from, valid_to, superseded_by, supersedes,
            superseded_event_id, recorded_at, recorded_to, user_id, agent_id, source_type, source_id,
            conversation_id, source_message_indexes, erasure, erased_now
        FROM memory_versions
        WHERE tenant_id = for_tenant
          AND (memory_id = ANY(memories) OR version_id = ANY(versions))
        RETURNING version_id, memory_id
    )
    SELECT coalesce(array_agg(version_id), '{}'), coalesce(array_agg(DISTINCT memory_id), '{}')
    INTO tombstoned, touched FROM recorded;
    erased_versions := cardinality(tombstoned);

    DELETE FROM memory_versions v USING unnest(tombstoned) AS t(version_id)
    WHERE v.version_id = t.version_id AND v.tenant_id = for_tenant;

    -- The memories of this call none of whose versions is left.
    gone := ARRAY(SELECT m FROM unnest(touched) AS m
                  WHERE NOT EXISTS (SELECT 1 FROM memory_versions v
                                    WHERE v.tenant_id = for_tenant AND v.memory_id = m));
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
        WHERE (r.tenant_id = for_tenant AND r.created_at <= tenant_records_to)
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
REVOKE ALL ON FUNCTION aurra_erase(uuid, uuid, uuid[], bigint[], timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aurra_erase(uuid, uuid, uuid[], bigint[], timestamptz) TO aurra_app;
