-- Full-text candidates beside the vector ones (hybrid retrieval).
--
-- A GIN index over the English tsvector of current versions' content: candidate search reads
-- current memories only, and a superseded version never needs to be found by its words. An
-- expression index rather than a stored generated column: adding a stored column would rewrite
-- the whole table under an exclusive lock (every row gets its tsvector), where the index is
-- built beside it and no row changes. Queries name the same expression, so the index serves them.
CREATE INDEX memory_versions_current_content_words ON memory_versions
    USING gin (to_tsvector('english'::regconfig, content))
    WHERE recorded_to IS NULL AND valid_to IS NULL;
