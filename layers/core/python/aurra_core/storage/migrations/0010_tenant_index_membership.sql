-- A tenant with its own HNSW index (tenant_indexes.py) leaves the shared one, so each insert
-- enters one graph, not two. Which graph holds a row is not a fact about the memory: it is
-- the row's index membership, `in_shared_index`, set at insert from the catalog below and
-- changed only by the table's owner (the maintenance job) when a tenant moves.
--
-- Cheap on any table: the column has a constant default (no rewrite), and nothing else here
-- reads the table. The shared index itself is rebuilt by 0011, a migration of its own so that
-- this one's ACCESS EXCLUSIVE lock (ALTER TABLE) is not held through that build.

-- The tenants whose rows are kept out of the shared index. `leaving`: its own index is being
-- dropped and its rows are going back (new rows already go to the shared index).
CREATE TABLE tenant_own_indexes (
    tenant_id      uuid PRIMARY KEY REFERENCES tenants (id),
    leaving        boolean NOT NULL DEFAULT false,
    registered_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- The service reads its own tenant's row (the candidate search's choice of index), nothing else.
GRANT SELECT ON tenant_own_indexes TO aurra_app;
ALTER TABLE tenant_own_indexes ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenant_own_indexes TO aurra_app
    USING (tenant_id = aurra_current_tenant());

ALTER TABLE memory_versions ADD COLUMN in_shared_index boolean NOT NULL DEFAULT true;

-- Set at every insert, whatever the inserting statement says (a generated column cannot read
-- another table). As the owner: the service role needs no rights on the catalog for it.
CREATE FUNCTION aurra_shared_index_membership() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    NEW.in_shared_index := NOT EXISTS (
        SELECT 1 FROM tenant_own_indexes WHERE tenant_id = NEW.tenant_id AND NOT leaving);
    RETURN NEW;
END;
$$;
REVOKE ALL ON FUNCTION aurra_shared_index_membership() FROM PUBLIC;
CREATE TRIGGER memory_versions_shared_index_membership BEFORE INSERT ON memory_versions
    FOR EACH ROW EXECUTE FUNCTION aurra_shared_index_membership();

-- The append-only guard allows, besides closing transaction time once, a change of index
-- membership and of nothing else. Only the owner can make one: the service role may update
-- recorded_to alone (0003's column grant), so for it the table stays as append-only as before.
CREATE OR REPLACE FUNCTION aurra_memory_version_close_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.recorded_to IS NULL AND NEW.recorded_to IS NOT NULL
       AND (to_jsonb(NEW) - 'recorded_to') = (to_jsonb(OLD) - 'recorded_to') THEN
        RETURN NEW;
    END IF;
    IF NEW.in_shared_index IS DISTINCT FROM OLD.in_shared_index
       AND (to_jsonb(NEW) - 'in_shared_index') = (to_jsonb(OLD) - 'in_shared_index') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'aurra: a memory version can only have its transaction time closed, once'
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
