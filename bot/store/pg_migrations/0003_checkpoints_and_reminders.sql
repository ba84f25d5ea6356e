-- Flat costs on PostgreSQL too (issue 14; the same as the SQLite store's
-- migrations/0007_checkpoints_and_reminders.sql, which says why each exists). Additive: no row of the
-- log or of the games is rewritten, and every hash is unchanged.
--
-- Checkpoints: the state after every K-th entry (REFEREE_CHECKPOINT_EVERY), so that an undo proposal,
-- the Odds button of an old result and a verify from a point replay at most K entries. Each is checked
-- against the state hash its entry recorded before it is used (bot/record/checkpoint.py); a row that
-- does not match is ignored, so deleting this table's rows loses nothing but time. A game logged before
-- this version gets its first checkpoint with its next entry.
CREATE TABLE checkpoints (
    game_id  BIGINT  NOT NULL REFERENCES games (id),
    seq      INTEGER NOT NULL,              -- the entry after which `state` is the game
    state    BYTEA   NOT NULL,              -- the Game: zlib of its JSON in the game's own order
                                            -- (bot.store.sqlite.pack_state, as SQLite keeps it)
    live     TEXT    NOT NULL,              -- {"runs": [[first, last], ...], "whole": bool}: the top of
                                            -- the stack of entries not undone then, for the undos after it
    PRIMARY KEY (game_id, seq)
);

-- Reminders by an indexed query: when the newest entry of a game that asked for reminders (option
-- remind_after_hours) makes it due for one, in the entries' own time format; NULL when it asked for
-- none, or once it was reminded of this silence (bot.store.sqlite.remind_due computes it for each write).
ALTER TABLE games ADD COLUMN remind_due TEXT;
WITH asked AS (
    SELECT g.id, e.time, g.state::jsonb #> '{options,remind_after_hours}' AS hours
    FROM games g JOIN log_entries e ON e.game_id = g.id AND e.seq = g.last_seq
    WHERE g.status = 'active'
      AND NOT EXISTS (SELECT 1 FROM pacing_reminders r WHERE r.game_id = g.id AND r.seq = g.last_seq)
), due AS (
    SELECT id, time, CASE jsonb_typeof(hours)
                         WHEN 'number' THEN (hours #>> '{}')::double precision
                         WHEN 'string' THEN CASE WHEN hours #>> '{}' ~ '^ *[0-9]+(\.[0-9]+)? *$'
                                                 THEN trim(hours #>> '{}')::double precision END
                     END AS hours
    FROM asked
)
UPDATE games SET remind_due = to_char((due.time::timestamptz + due.hours * interval '1 hour') AT TIME ZONE 'UTC',
                                      'YYYY-MM-DD"T"HH24:MI:SS.MS') || '+00:00'
FROM due WHERE games.id = due.id AND due.hours > 0 AND due.hours < 1e6;
CREATE INDEX games_reminder_due ON games (remind_due) WHERE status = 'active' AND remind_due IS NOT NULL;

-- The undo entries of a game (Store.undone: an undo proposal and every page of /log read them), found
-- through this index instead of parsing every entry's order: a proposal's cost no longer grows with the log.
CREATE INDEX log_entries_undos ON log_entries (game_id, seq) WHERE (order_json::jsonb ->> 'action') = 'undo';
