-- Row-level security: a second wall between tenants, behind the code's own filters.
-- The service works as aurra_app (owns nothing, cannot bypass RLS) and names its tenant per
-- transaction with set_config('aurra.tenant_id', ..., true). Without a tenant it sees nothing.

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aurra_app') THEN
        CREATE ROLE aurra_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOINHERIT;
    END IF;
END
$$;
-- The connecting (migrating) user may switch to it: SET LOCAL ROLE aurra_app.
DO $$
BEGIN
    EXECUTE format('GRANT aurra_app TO %I', current_user);
EXCEPTION WHEN others THEN
    NULL;  -- already a member, or a superuser
END
$$;

CREATE FUNCTION aurra_current_tenant() RETURNS uuid LANGUAGE sql STABLE AS $$
    SELECT nullif(current_setting('aurra.tenant_id', true), '')::uuid
$$;

GRANT USAGE ON SCHEMA public TO aurra_app;
GRANT SELECT, INSERT ON tenants, api_keys, key_settings, memory_versions, audit_events TO aurra_app;
GRANT UPDATE (recorded_to) ON memory_versions TO aurra_app;
GRANT UPDATE (revoked_at) ON api_keys TO aurra_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_records TO aurra_app;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO aurra_app;
GRANT EXECUTE ON FUNCTION aurra_current_tenant() TO aurra_app;

ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE key_settings ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_versions ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit_events ENABLE ROW LEVEL SECURITY;

CREATE POLICY tenant_isolation ON tenants TO aurra_app
    USING (id = aurra_current_tenant()) WITH CHECK (id = aurra_current_tenant());
CREATE POLICY tenant_isolation ON api_keys TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());
CREATE POLICY tenant_isolation ON key_settings TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());
CREATE POLICY tenant_isolation ON memory_versions TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());
CREATE POLICY tenant_isolation ON audit_events TO aurra_app
    USING (tenant_id = aurra_current_tenant()) WITH CHECK (tenant_id = aurra_current_tenant());

-- Authentication happens before the tenant is known: this one function may find a key by its
-- lookup id, and returns nothing but what checking it needs.
CREATE FUNCTION aurra_find_api_key(key_lookup text)
    RETURNS TABLE (id uuid, tenant_id uuid, secret_hash text, revoked_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT id, tenant_id, secret_hash, revoked_at FROM api_keys WHERE lookup = key_lookup
$$;
REVOKE ALL ON FUNCTION aurra_find_api_key(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aurra_find_api_key(text) TO aurra_app;
