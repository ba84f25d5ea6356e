-- Outcomes compressed with a preset dictionary (issue 14; the same as the SQLite store's
-- migrations/0009_outcome_dictionary.sql, which says why). No table changes: from this version on, a
-- log entry's compressed JSON columns are zlib streams primed with the frozen dictionary
-- bot/store/outcome-dictionary-1.json. Rows written before stay plain zlib and read as they are. The
-- version is raised so that an older bot refuses the database at start-up instead of failing on the
-- first outcome it cannot decompress.
SELECT 1;
