-- A compact log (Issue 5: at most 2 KB of database per entry). From this version on the store
-- writes each entry's Outcome zlib-compressed, as a BLOB, in the same `outcome` column
-- (bot/store/sqlite.py: pack_json / unpack_json): a fire's 5.8 KB of JSON becomes ~1.1 KB.
-- Older rows keep their TEXT and read as before, byte for byte, and every hash is unchanged:
-- the chain covers the canonical JSON, never the stored bytes. A bot of schema 3 would read the
-- BLOBs as JSON text and fail; this version number makes it refuse the file at start-up instead.
--
-- The table is rebuilt as an ordinary (rowid) table. WITHOUT ROWID keeps a row in its B-tree
-- only up to ~1,000 bytes (of a 4 KB page) and spills the rest to an overflow page of its own:
-- a 1.5 KB entry cost a whole 4 KB page there. A rowid table holds rows up to ~4,000 bytes in
-- place, so entries share pages; (game_id, seq) stays the primary key, as a unique index.
-- Same columns in the same order, every row copied as it is.

CREATE TABLE log_entries_compact (
    game_id         INTEGER NOT NULL REFERENCES games (id),
    seq             INTEGER NOT NULL CHECK (seq >= 1),
    time            TEXT    NOT NULL,
    actor           INTEGER NOT NULL,
    command         TEXT    NOT NULL,
    order_json      TEXT    NOT NULL,
    dice            TEXT    NOT NULL,              -- JSON list of die faces, in the order drawn
    manual          INTEGER NOT NULL CHECK (manual IN (0, 1)),
    outcome         BLOB    NOT NULL,              -- the Outcome: compressed JSON (BLOB), or JSON text (older rows)
    state_hash      TEXT    NOT NULL,
    prev_hash       TEXT    NOT NULL,
    hash            TEXT    NOT NULL,
    interaction_id  INTEGER,
    rules_version   INTEGER NOT NULL DEFAULT 1 CHECK (rules_version >= 1),
    PRIMARY KEY (game_id, seq)
);

INSERT INTO log_entries_compact
    (game_id, seq, time, actor, command, order_json, dice, manual, outcome, state_hash, prev_hash, hash,
     interaction_id, rules_version)
SELECT game_id, seq, time, actor, command, order_json, dice, manual, outcome, state_hash, prev_hash, hash,
       interaction_id, rules_version
FROM log_entries ORDER BY game_id, seq;

DROP TABLE log_entries;
ALTER TABLE log_entries_compact RENAME TO log_entries;

-- exactly once: an interaction delivered twice finds its entry instead of rolling again
CREATE UNIQUE INDEX log_entries_interaction ON log_entries (interaction_id)
    WHERE interaction_id IS NOT NULL;
