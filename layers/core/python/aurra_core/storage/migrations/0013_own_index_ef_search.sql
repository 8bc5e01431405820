-- Each tenant's own HNSW index gets its own ef_search, calibrated by the maintenance job
-- (tenant_indexes.calibrate): the lowest candidate list at which the index finds the tenant's
-- true top 3 (recall@3 >= 0.995 over a sample of its memories), instead of one setting for
-- every index (a tenant of 1M is at 1.000 from ef_search 40, one of 100k needs 100-150).
--
-- `calibrated_index`: the index (its oid) the value was measured on. The candidate search
-- (tenant_indexes.route) uses the value only while that index is the tenant's valid one, so a
-- rebuilt or replaced index is searched with the setting `candidate_ef_search` until it is
-- calibrated in its turn. `calibrated_rows`: the tenant's current memories then (the job
-- calibrates again once they have doubled); `calibrated_recall`: what was measured at it.
--
-- Cheap on any table: nullable columns without a default (no rewrite), a catalog of at most
-- `tenant_index_limit` rows. The service keeps its SELECT on the table (0010's table grant
-- covers the new columns) and the table's row-level security: a tenant reads its own row's
-- value, never another's.
ALTER TABLE tenant_own_indexes
    ADD COLUMN ef_search          integer CHECK (ef_search BETWEEN 1 AND 1000),
    ADD COLUMN calibrated_index   oid,
    ADD COLUMN calibrated_rows    bigint CHECK (calibrated_rows >= 0),
    ADD COLUMN calibrated_recall  real CHECK (calibrated_recall BETWEEN 0 AND 1),
    ADD COLUMN calibrated_at      timestamptz,
    ADD CONSTRAINT tenant_own_indexes_calibrated_together CHECK (
        (ef_search IS NULL) = (calibrated_index IS NULL)
        AND (ef_search IS NULL) = (calibrated_rows IS NULL)
        AND (ef_search IS NULL) = (calibrated_at IS NULL));
