-- A large import announced by its tenant (POST /agent/imports) keeps the tenant's rows out of the
-- shared HNSW index from its first row, as the maintenance job would once the tenant is large
-- (0010): each insert then enters no graph, and the tenant's own index is built once, at the
-- end, over all its rows (POST /agent/imports/index asks the maintenance job for it). Until that
-- build the tenant's candidate search and its searches read its rows exactly (tenant_indexes.route
-- says "exact" for a listed tenant without a valid index): correct, slower.
--
-- The tenant's first own index is then built with the shared index's graph parameters (m 16,
-- ef_construction 64: the graph its rows would otherwise have entered, so its searches are no
-- worse for the wait), several times faster than with the own indexes' (tenant_index_m,
-- tenant_index_ef_construction; bench/notes/portability.md), and the job's next run replaces it
-- with those, building the replacement beside it while it serves (tenant_indexes.py).
-- `import_build`: that first build is still to come.
ALTER TABLE tenant_own_indexes ADD COLUMN import_build boolean NOT NULL DEFAULT false;

-- The service role may list its own tenant, nothing else, through this function (as the owner):
-- the tenant is the transaction's (aurra_current_tenant), never an argument. A tenant already
-- listed stays as it is (one leaving is not taken back: its move out is under way); no tenant
-- is listed once `max_listed` are (the setting tenant_index_limit: the maintenance job would
-- move the smallest out again). True when the tenant is listed and not leaving afterwards.
CREATE FUNCTION aurra_defer_shared_index(max_listed integer) RETURNS boolean
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    tenant uuid := aurra_current_tenant();
BEGIN
    IF tenant IS NULL THEN
        RAISE EXCEPTION 'aurra: no tenant' USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- One listing at a time, so two announcements cannot both take the last place.
    LOCK TABLE tenant_own_indexes IN SHARE ROW EXCLUSIVE MODE;
    IF NOT EXISTS (SELECT 1 FROM tenant_own_indexes WHERE tenant_id = tenant)
       AND (SELECT count(*) FROM tenant_own_indexes) < max_listed THEN
        INSERT INTO tenant_own_indexes (tenant_id, import_build) VALUES (tenant, true);
    END IF;
    RETURN EXISTS (SELECT 1 FROM tenant_own_indexes WHERE tenant_id = tenant AND NOT leaving);
END;
$$;
REVOKE ALL ON FUNCTION aurra_defer_shared_index(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aurra_defer_shared_index(integer) TO aurra_app;
