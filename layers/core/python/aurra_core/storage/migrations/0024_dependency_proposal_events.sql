-- The review queue's dependency proposals (migration 0021) on the change stream: a
-- `dependency_proposed` audit event gives `proposal.created` like a supersession proposal, and
-- its dismissal's `proposal.resolved` names the same memory, the one that may be stale. Both
-- proposal events now say their `kind`: `supersession` or `dependency`.
CREATE OR REPLACE FUNCTION aurra_audit_change_event() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    subject uuid;
    scope_agent text;
    scope_user text;
    proposal_kind text;
BEGIN
    IF NEW.type NOT IN ('auto_supersede', 'manual_supersede', 'revert', 'supersession_proposed',
                        'dependency_proposed', 'proposal_approved', 'proposal_dismissed') THEN
        RETURN NULL;
    END IF;
    proposal_kind := 'supersession';
    IF NEW.type = 'dependency_proposed' THEN
        proposal_kind := 'dependency';
    ELSIF NEW.type = 'proposal_dismissed' THEN
        SELECT CASE p.type WHEN 'dependency_proposed' THEN 'dependency' ELSE 'supersession' END
            INTO proposal_kind
            FROM audit_events p
            WHERE p.tenant_id = NEW.tenant_id AND p.id = NEW.resolves_event_id;
    END IF;
    -- A dependency proposal names the memory that may be stale as its memory_id; every other
    -- event's subject is the memory retired (or, for a revert, restored).
    subject := CASE WHEN NEW.type = 'revert' OR proposal_kind = 'dependency' THEN NEW.memory_id
                    ELSE NEW.superseded_id END;
    SELECT user_id, agent_id INTO scope_user, scope_agent FROM memory_versions
        WHERE tenant_id = NEW.tenant_id AND memory_id = subject LIMIT 1;
    IF NEW.type = 'supersession_proposed' THEN
        INSERT INTO change_events (tenant_id, type, user_id, agent_id, memory_id, data)
        VALUES (NEW.tenant_id, 'proposal.created', scope_user, scope_agent, subject,
                jsonb_build_object('event_id', NEW.id, 'proposed_by', NEW.memory_id,
                                   'kind', 'supersession'));
    END IF;
    IF NEW.type = 'dependency_proposed' THEN
        INSERT INTO change_events (tenant_id, type, user_id, agent_id, memory_id, data)
        VALUES (NEW.tenant_id, 'proposal.created', scope_user, scope_agent, subject,
                jsonb_build_object('event_id', NEW.id, 'proposed_by', NEW.details ->> 'superseded_by',
                                   'kind', 'dependency', 'superseded_id', NEW.superseded_id));
    END IF;
    IF NEW.type IN ('proposal_approved', 'proposal_dismissed') THEN
        INSERT INTO change_events (tenant_id, type, user_id, agent_id, memory_id, data)
        VALUES (NEW.tenant_id, 'proposal.resolved', scope_user, scope_agent, subject,
                jsonb_build_object('event_id', NEW.id, 'proposal_id', NEW.resolves_event_id,
                                   'resolution', CASE NEW.type WHEN 'proposal_approved' THEN 'approved'
                                                 ELSE 'dismissed' END,
                                   'kind', proposal_kind));
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
