-- Games (one active per channel; ended games stay for their logs) and their hash-chained log.
-- Discord snowflakes (channel, guild, user, interaction ids) are INTEGER: they fit in 64 bits.

CREATE TABLE games (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so old logs stay distinct
    channel_id  INTEGER NOT NULL,
    guild_id    INTEGER,
    ruleset     TEXT    NOT NULL,
    status      TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
    created_at  TEXT    NOT NULL,
    ended_at    TEXT,
    state       TEXT    NOT NULL,                  -- the Game as JSON
    last_seq    INTEGER NOT NULL DEFAULT 0,        -- seq of the newest log entry
    head_hash   TEXT    NOT NULL                   -- hash of the newest log entry
);

-- one game per channel at a time, enforced by the database itself
CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id) WHERE status = 'active';
CREATE INDEX games_by_channel ON games (channel_id, id);

CREATE TABLE log_entries (
    game_id         INTEGER NOT NULL REFERENCES games (id),
    seq             INTEGER NOT NULL CHECK (seq >= 1),
    time            TEXT    NOT NULL,
    actor           INTEGER NOT NULL,
    command         TEXT    NOT NULL,
    order_json      TEXT    NOT NULL,
    dice            TEXT    NOT NULL,              -- JSON list of die faces, in the order drawn
    manual          INTEGER NOT NULL CHECK (manual IN (0, 1)),
    outcome         TEXT    NOT NULL,              -- the Outcome as JSON
    state_hash      TEXT    NOT NULL,
    prev_hash       TEXT    NOT NULL,
    hash            TEXT    NOT NULL,
    interaction_id  INTEGER,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

-- exactly once: an interaction delivered twice finds its entry instead of rolling again
CREATE UNIQUE INDEX log_entries_interaction ON log_entries (interaction_id)
    WHERE interaction_id IS NOT NULL;
