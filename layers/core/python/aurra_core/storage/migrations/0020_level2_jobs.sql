-- Asynchronous Level 2: a write asked to decide later (`auto_supersede: "async"`, or the key's
-- `auto_supersede_mode` "async") commits its memory with a job row in the same transaction;
-- a worker claims the job, classifies, and records the decision with the job's completion in
-- one transaction (docs/architecture.md, "Asynchronous Level 2").
--
-- A job carries ids only, never content: it names the memory to decide about. `written_at`
-- is the write's transaction time: the job's candidates are memories first recorded before it
-- (never the fact itself, a fact of the same request, or a later write).
-- A claim is a lease: `lease_until` passed, another worker may claim the job again (a worker
-- killed mid-job); completion locks the row and checks it is still pending, so a decision is
-- applied once whatever the redelivery.

CREATE TABLE level2_jobs (
    id              uuid PRIMARY KEY,
    tenant_id       uuid NOT NULL REFERENCES tenants (id),
    api_key_id      uuid NOT NULL REFERENCES api_keys (id),
    memory_id       uuid NOT NULL,
    written_at      timestamptz NOT NULL,
    -- What the audit events of the decision name besides the memory (extractor, message index).
    provenance      jsonb NOT NULL DEFAULT '{}',
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
    attempts        integer NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    lease_until     timestamptz,
    completed_at    timestamptz,
    -- superseded, proposed, not_acted, candidate_changed, memory_changed, or a skipped_reason.
    outcome         text,
    audit_event_id  uuid
);
CREATE INDEX level2_jobs_pending ON level2_jobs (created_at) WHERE status = 'pending';
CREATE INDEX level2_jobs_memory ON level2_jobs (tenant_id, memory_id);

GRANT SELECT, INSERT ON level2_jobs TO aurra_app;
GRANT UPDATE (status, attempts, lease_until, completed_at, outcome, audit_event_id) ON level2_jobs TO aurra_app;
ALTER TABLE level2_jobs ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON level2_jobs TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());

-- A key's default mode of Level 2: decide while the write waits (sync) or after it (async).
ALTER TABLE key_settings
    ADD COLUMN auto_supersede_mode text NOT NULL DEFAULT 'sync' CHECK (auto_supersede_mode IN ('sync', 'async'));

-- The audit event of an asynchronous decision that acted on nothing (a supersession or a
-- proposal has its own type): what was decided, and why nothing was done.
ALTER TABLE audit_events DROP CONSTRAINT audit_events_type_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_type_check CHECK (type IN (
    'auto_supersede', 'manual_supersede', 'duplicate_rejected', 'revert', 'settings_updated',
    'supersession_proposed', 'proposal_approved', 'proposal_dismissed', 'erasure',
    'auto_supersede_completed'));

-- The sweeper's one look across tenants: the pending jobs not claimed, or whose lease has
-- passed, created at least `older_than` ago (a nudge lost, or a worker killed): ids and
-- tenants only. The worker then claims each in its tenant's own transaction.
CREATE FUNCTION aurra_level2_jobs_due(older_than interval, at_most integer)
    RETURNS TABLE (job_id uuid, tenant_id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT id, tenant_id FROM level2_jobs
    WHERE status = 'pending' AND created_at <= clock_timestamp() - older_than
      AND (lease_until IS NULL OR lease_until < clock_timestamp())
    ORDER BY created_at LIMIT at_most
$$;
REVOKE ALL ON FUNCTION aurra_level2_jobs_due(interval, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aurra_level2_jobs_due(interval, integer) TO aurra_app;
