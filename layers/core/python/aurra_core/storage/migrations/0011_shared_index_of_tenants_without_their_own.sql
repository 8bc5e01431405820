-- The shared HNSW index holds only the rows of tenants without an index of their own (0010).
--
-- Until the maintenance job moves a tenant, every row is in_shared_index, so the new index
-- holds what the old one did; it is built before the old one is dropped. Cost: a full HNSW
-- build of the current rows, during which writes to memory_versions wait (CREATE INDEX takes
-- a SHARE lock) and reads go on; the DROP at the end holds an ACCESS EXCLUSIVE lock until the
-- commit, a moment. Measured here: ~2 s at 10k memories, 8-19 s at 100k, 72-350 s at 1M (2
-- cores, 4GB of buffers). Past 300,000 current rows (the estimate of the last ANALYZE) this
-- migration stops with a message instead of building: that build would outlast the migrate
-- function (300 s) and stop writes meanwhile. Build it first without stopping them, then
-- deploy again (the build is then skipped):
--   SET maintenance_work_mem = '2GB';  -- the graph in memory: a build several times faster
--   CREATE INDEX CONCURRENTLY memory_versions_embedding_shared ON memory_versions
--       USING hnsw (embedding vector_cosine_ops)
--       WHERE in_shared_index AND recorded_to IS NULL AND valid_to IS NULL;
DO $$
BEGIN
    IF to_regclass('memory_versions_embedding_shared') IS NULL
       AND (SELECT reltuples FROM pg_class WHERE oid = 'memory_versions'::regclass) > 300000 THEN
        RAISE EXCEPTION 'aurra: memory_versions is too large to rebuild its shared HNSW index here'
            USING HINT = 'Build memory_versions_embedding_shared by hand with CREATE INDEX CONCURRENTLY '
                         '(migration 0011 has the statement), then migrate again.';
    END IF;
END
$$;
CREATE INDEX IF NOT EXISTS memory_versions_embedding_shared ON memory_versions
    USING hnsw (embedding vector_cosine_ops)
    WHERE in_shared_index AND recorded_to IS NULL AND valid_to IS NULL;
DROP INDEX IF EXISTS memory_versions_embedding_current;
