-- Flat costs (issue 14). Additive: no row of the log or of the games is rewritten, and every hash
-- is unchanged.
--
-- Checkpoints: the state after every K-th entry (REFEREE_CHECKPOINT_EVERY), written in the same
-- transaction as that entry, so that an undo proposal, the Odds button of an old result and a
-- verify from a point replay at most K entries. Each is checked against the state hash its entry
-- recorded before it is used (bot/record/checkpoint.py); a row that does not match is ignored, so
-- deleting this table's rows loses nothing but time. A game logged before this version gets its
-- first checkpoint with its next entry.
CREATE TABLE checkpoints (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    seq      INTEGER NOT NULL,              -- the entry after which `state` is the game
    state    BLOB    NOT NULL,              -- the Game: compressed JSON (as games.state is written)
    live     TEXT    NOT NULL,              -- {"runs": [[first, last], ...], "whole": bool}: the top
                                            -- of the stack of entries not undone then (runs of
                                            -- consecutive seqs), for the undos after it
    PRIMARY KEY (game_id, seq)
);

-- Reminders by an indexed query: when the newest entry of a game that asked for reminders
-- (option remind_after_hours) makes it due for one, in the entry's own time format; NULL when it
-- asked for none, or once it was reminded of this silence. The reminder loop reads the games due
-- by now through the index instead of parsing every active game's state.
ALTER TABLE games ADD COLUMN remind_due TEXT;
UPDATE games SET remind_due = (
    SELECT strftime('%Y-%m-%dT%H:%M:%f', e.time,
                    '+' || CAST(json_extract(games.state, '$.options.remind_after_hours') AS REAL) || ' hours')
           || '+00:00'
    FROM log_entries e WHERE e.game_id = games.id AND e.seq = games.last_seq)
WHERE status = 'active'
  AND CAST(json_extract(state, '$.options.remind_after_hours') AS REAL) > 0
  AND NOT EXISTS (SELECT 1 FROM pacing_reminders r WHERE r.game_id = games.id AND r.seq = games.last_seq);
CREATE INDEX games_reminder_due ON games (remind_due) WHERE status = 'active' AND remind_due IS NOT NULL;

-- The undo entries of a game (Store.undone: an undo proposal and every page of /log read them),
-- found through this index instead of parsing every entry's order: the cost of a proposal no
-- longer grows with the log.
CREATE INDEX log_entries_undos ON log_entries (game_id, seq) WHERE json_extract(order_json, '$.action') = 'undo';
