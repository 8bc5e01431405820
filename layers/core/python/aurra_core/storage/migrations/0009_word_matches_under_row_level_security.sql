-- The full-text indexes (0007, 0008) as the service sees the table: through row-level security.
--
-- Under a row-level security policy PostgreSQL uses a query's condition as an index condition
-- only when its operator is leakproof, and the full-text match (@@) is not: as the service role,
-- a word search read every row of the tenant and computed its words (a sequential scan, 112 ms
-- at 10,000 memories against 13 ms through the index). Marking @@ leakproof takes a superuser,
-- which a managed database does not give. So the index lookup runs in this function, as the
-- table's owner, and returns version ids only: the tenant's own (the one the transaction names,
-- as the policy does), which the caller then reads through the policy, by primary key.
CREATE FUNCTION aurra_word_matches(for_tenant uuid, words tsquery, past_versions boolean)
    RETURNS SETOF bigint
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT version_id FROM memory_versions
    WHERE to_tsvector('english'::regconfig, content) @@ words
      AND tenant_id = for_tenant AND for_tenant = coalesce(aurra_current_tenant(), for_tenant)
      AND recorded_to IS NULL AND valid_to IS NULL
    UNION ALL
    SELECT version_id FROM memory_versions
    WHERE past_versions AND to_tsvector('english'::regconfig, content) @@ words
      AND tenant_id = for_tenant AND for_tenant = coalesce(aurra_current_tenant(), for_tenant)
      AND (recorded_to IS NOT NULL OR valid_to IS NOT NULL)
$$;
REVOKE ALL ON FUNCTION aurra_word_matches(uuid, tsquery, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aurra_word_matches(uuid, tsquery, boolean) TO aurra_app;
