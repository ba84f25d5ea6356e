-- Outcomes compressed with a preset dictionary (issue 14: bytes per log entry). No table changes:
-- from this version on, a log entry's compressed JSON columns are zlib streams primed with the
-- frozen dictionary bot/store/outcome-dictionary-1.json (named in each stream's header by its
-- Adler-32, zlib's DICTID). A /fire entry's outcome went from 1,130 to 815 B, so three rows fit a
-- 4 KB page instead of two (2,050 -> 1,393 B of the database an entry).
--
-- Rows written before stay plain zlib and read as they are. The version is raised only so that a
-- bot older than this one refuses the database at start-up ("newer than this bot knows: run a newer
-- version of the bot") instead of failing on the first outcome it cannot decompress.
SELECT 1;
