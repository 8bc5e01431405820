-- The change stream (GET /agent/events, webhooks): an outbox written by triggers in the very
-- transaction of each change, so no change commits without its event and no event without its
-- change. Events carry ids only, never memory content.
--
-- Order: each event takes its tenant's next sequence number at COMMIT (a deferred constraint
-- trigger), under the row lock of the tenant's counter, held until the commit ends. A later
-- number is given only after the earlier one's transaction has committed (or rolled back, and
-- its number with it), so the numbers a reader sees are the tenant's commit order with no gap
-- that a slower transaction could fill later: a cursor `seq > n` never misses an event.
-- docs/architecture.md, "The change stream".

CREATE TABLE change_events (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    seq         bigint,             -- the tenant's commit order; NULL only until the commit
    type        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    user_id     text,
    agent_id    text,
    memory_id   uuid,
    data        jsonb NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX change_events_tenant_seq ON change_events (tenant_id, seq);

CREATE TABLE change_event_counters (
    tenant_id   uuid PRIMARY KEY REFERENCES tenants (id),
    last_seq    bigint NOT NULL
);

GRANT SELECT ON change_events, change_event_counters TO aurra_app;
GRANT INSERT (tenant_id, type, user_id, agent_id, memory_id, data) ON change_events TO aurra_app;
ALTER TABLE change_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE change_event_counters ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON change_events TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());
CREATE POLICY tenant_isolation ON change_event_counters TO aurra_app
    USING (tenant_id = aurra_current_tenant());

-- At commit: the event's sequence number (and its created_at, so the stream's times rise with
-- it). Runs as the owner: the service role may insert an event but never number one.
CREATE FUNCTION aurra_sequence_change_event() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    n bigint;
BEGIN
    INSERT INTO change_event_counters AS c (tenant_id, last_seq) VALUES (NEW.tenant_id, 1)
        ON CONFLICT (tenant_id) DO UPDATE SET last_seq = c.last_seq + 1
        RETURNING last_seq INTO n;
    UPDATE change_events SET seq = n, created_at = clock_timestamp() WHERE id = NEW.id;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER change_events_sequence AFTER INSERT ON change_events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION aurra_sequence_change_event();

-- A memory's first version: memory.created.
CREATE FUNCTION aurra_memory_created_event() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM memory_versions
                   WHERE tenant_id = NEW.tenant_id AND memory_id = NEW.memory_id
                     AND version_id <> NEW.version_id) THEN
        INSERT INTO change_events (tenant_id, type, user_id, agent_id, memory_id, data)
        VALUES (NEW.tenant_id, 'memory.created', NEW.user_id, NEW.agent_id, NEW.memory_id,
                jsonb_strip_nulls(jsonb_build_object('supersedes', NEW.supersedes,
                                                     'superseded_by', NEW.superseded_by)));
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER memory_versions_change_event AFTER INSERT ON memory_versions
    FOR EACH ROW EXECUTE FUNCTION aurra_memory_created_event();

-- An audit event's change: a supersession retires `superseded_id` (memory_id of the event is
-- the memory that replaced it); a revert restores `memory_id`; proposals name the pair.
CREATE FUNCTION aurra_audit_change_event() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    subject uuid;
    scope_agent text;
    scope_user text;
BEGIN
    subject := CASE WHEN NEW.type = 'revert' THEN NEW.memory_id ELSE NEW.superseded_id END;
    IF NEW.type NOT IN ('auto_supersede', 'manual_supersede', 'revert', 'supersession_proposed',
                        'proposal_approved', 'proposal_dismissed') THEN
        RETURN NULL;
    END IF;
    SELECT user_id, agent_id INTO scope_user, scope_agent FROM memory_versions
        WHERE tenant_id = NEW.tenant_id AND memory_id = subject LIMIT 1;
    IF NEW.type IN ('supersession_proposed') THEN
        INSERT INTO change_events (tenant_id, type, user_id, agent_id, memory_id, data)
        VALUES (NEW.tenant_id, 'proposal.created', scope_user, scope_agent, subject,
                jsonb_build_object('event_id', NEW.id, 'proposed_by', NEW.memory_id));
    END IF;
    IF NEW.type IN ('proposal_approved', 'proposal_dismissed') THEN
        INSERT INTO change_events (tenant_id, type, user_id, agent_id, memory_id, data)
        VALUES (NEW.tenant_id, 'proposal.resolved', scope_user, scope_agent, subject,
                jsonb_build_object('event_id', NEW.id, 'proposal_id', NEW.resolves_event_id,
                                   'resolution', CASE NEW.type WHEN 'proposal_approved' THEN 'approved'
                                                 ELSE 'dismissed' END));
    END IF;
    IF NEW.type IN ('auto_supersede', 'manual_supersede', 'proposal_approved') THEN
        INSERT INTO change_events (tenant_id, type, user_id, agent_id, memory_id, data)
        VALUES (NEW.tenant_id, 'memory.superseded', scope_user, scope_agent, subject,
                jsonb_build_object('event_id', NEW.id, 'superseded_by', NEW.memory_id,
                                   'by', CASE NEW.type WHEN 'auto_supersede' THEN 'auto'
                                         WHEN 'proposal_approved' THEN 'approval' ELSE 'manual' END));
    END IF;
    IF NEW.type = 'revert' THEN
        INSERT INTO change_events (tenant_id, type, user_id, agent_id, memory_id, data)
        VALUES (NEW.tenant_id, 'memory.reverted', scope_user, scope_agent, subject,
                jsonb_build_object('event_id', NEW.id, 'reverted_event_id', NEW.reverts_event_id,
                                   'was_superseded_by', NEW.superseded_id));
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER audit_events_change_event AFTER INSERT ON audit_events
    FOR EACH ROW EXECUTE FUNCTION aurra_audit_change_event();

-- Webhooks: a key's endpoints (the `webhooks` setting; replaced whole by each PATCH that sets
-- it), the deliveries fanned out from the change stream, and how far the fan-out has read.
CREATE TABLE webhook_endpoints (
    api_key_id  uuid NOT NULL REFERENCES api_keys (id),
    position    smallint NOT NULL CHECK (position BETWEEN 0 AND 4),
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    url         text NOT NULL,
    events      text[] NOT NULL,
    secret      text NOT NULL,
    PRIMARY KEY (api_key_id, position)
);
CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (tenant_id);

CREATE TABLE webhook_deliveries (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id       uuid NOT NULL REFERENCES tenants (id),
    api_key_id      uuid NOT NULL REFERENCES api_keys (id),
    url             text NOT NULL,
    event_id        uuid NOT NULL,          -- change_events.id (its tenant's)
    event_seq       bigint NOT NULL,
    event_type      text NOT NULL,
    memory_id       uuid,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts        integer NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_attempt_at timestamptz,
    last_status     integer,
    last_error      text,
    delivered_at    timestamptz
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_tenant ON webhook_deliveries (tenant_id, created_at DESC, id DESC);

CREATE TABLE webhook_cursors (
    tenant_id   uuid PRIMARY KEY REFERENCES tenants (id),
    last_seq    bigint NOT NULL
);

GRANT SELECT, INSERT, DELETE ON webhook_endpoints TO aurra_app;
GRANT SELECT ON webhook_deliveries TO aurra_app;
GRANT UPDATE (status, attempts, next_attempt_at, created_at, last_error) ON webhook_deliveries TO aurra_app;
ALTER TABLE webhook_endpoints ENABLE ROW LEVEL SECURITY;
ALTER TABLE webhook_deliveries ENABLE ROW LEVEL SECURITY;
ALTER TABLE webhook_cursors ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON webhook_endpoints TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());
CREATE POLICY tenant_isolation ON webhook_deliveries TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());
-- Key administration reads a key's settings, webhooks among them: never their secrets.
GRANT SELECT (api_key_id, position, tenant_id, url, events) ON webhook_endpoints TO aurra_keyadmin;
CREATE POLICY key_administration ON webhook_endpoints TO aurra_keyadmin USING (true);
