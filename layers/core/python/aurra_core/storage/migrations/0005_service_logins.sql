-- The logins the service signs in with (in AWS through RDS Proxy with IAM authentication;
-- the migrate function sets their passwords from their secrets, which the proxy holds).
-- Neither is a superuser, owns anything, creates anything or bypasses row-level security.
--   aurra_service   the API functions and the authorizer: a member of aurra_app, so row-level
--                   security confines it to the tenant it names per transaction (to nothing
--                   without one); RESET ROLE leads back to a role that sees no more.
--   aurra_keyadmin  the admin function: creates, lists, rotates and revokes API keys of any
--                   tenant, and can read nothing else (no memories, no audit events).
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aurra_service') THEN
        CREATE ROLE aurra_service LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE INHERIT;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aurra_keyadmin') THEN
        CREATE ROLE aurra_keyadmin LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOINHERIT;
    END IF;
END
$$;

GRANT aurra_app TO aurra_service;

GRANT USAGE ON SCHEMA public TO aurra_keyadmin;
GRANT SELECT, INSERT ON tenants, api_keys, key_settings TO aurra_keyadmin;
GRANT UPDATE (revoked_at) ON api_keys TO aurra_keyadmin;
CREATE POLICY key_administration ON tenants TO aurra_keyadmin USING (true) WITH CHECK (true);
CREATE POLICY key_administration ON api_keys TO aurra_keyadmin USING (true) WITH CHECK (true);
CREATE POLICY key_administration ON key_settings TO aurra_keyadmin USING (true) WITH CHECK (true);
