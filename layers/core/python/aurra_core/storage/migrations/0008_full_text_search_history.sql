-- Full-text search over the versions 0007 leaves out: those no longer current (closed in
-- transaction time, or ended in valid time).
--
-- A search reads a pinned snapshot (its `known_at`, and the pages after the first), a past
-- valid time (`as_of`) or superseded memories: rows outside 0007's partial index. This index
-- holds exactly the complement, so every version is in one of the two and a search's word
-- list is served by an index whatever it asks. Each row enters one index: a version enters
-- this one when it is closed (that update writes a new row version anyway), so a write that
-- supersedes pays one more GIN entry and a plain write nothing.
CREATE INDEX memory_versions_past_content_words ON memory_versions
    USING gin (to_tsvector('english'::regconfig, content))
    WHERE recorded_to IS NOT NULL OR valid_to IS NOT NULL;
