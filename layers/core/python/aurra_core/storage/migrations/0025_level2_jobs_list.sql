-- GET /agent/jobs lists a tenant's asynchronous Level 2 jobs newest first, by pages (created_at,
-- id): an index of that order, so a page reads its rows and no other tenant's.
CREATE INDEX level2_jobs_tenant_created ON level2_jobs (tenant_id, created_at DESC, id DESC);
