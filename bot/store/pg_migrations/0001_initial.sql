-- The PostgreSQL store's schema: what the SQLite store reached at its schema 6, in one step.
-- Same tables, same columns, same meaning (bot/store/migrations/0001-0006 say why each exists);
-- the rows read back as the same StoredGame, LogEntry and UndoRequest, so the hash chain, replay
-- and verify are the same code for both stores. Discord snowflakes are BIGINT (they fit in 63
-- bits). Times stay ISO 8601 text, as the log entries hash them and as SQLite keeps them.

CREATE TABLE games (
    id          BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- never reused
    channel_id  BIGINT  NOT NULL,
    guild_id    BIGINT,
    ruleset     TEXT    NOT NULL,
    status      TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
    created_at  TEXT    NOT NULL,
    ended_at    TEXT,
    state       TEXT    NOT NULL,                  -- the Game as JSON
    last_seq    INTEGER NOT NULL DEFAULT 0,        -- seq of the newest log entry
    head_hash   TEXT    NOT NULL                   -- hash of the newest log entry
);
-- one game per channel at a time, enforced by the database itself (across every bot process)
CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id) WHERE status = 'active';
CREATE INDEX games_by_channel ON games (channel_id, id);
CREATE INDEX games_by_guild ON games (guild_id, created_at, status);

CREATE TABLE log_entries (
    game_id         BIGINT   NOT NULL REFERENCES games (id),
    seq             INTEGER  NOT NULL CHECK (seq >= 1),
    time            TEXT     NOT NULL,
    actor           BIGINT   NOT NULL,
    command         TEXT     NOT NULL,
    order_json      TEXT     NOT NULL,
    dice            TEXT     NOT NULL,             -- JSON list of die faces, in the order drawn
    manual          BOOLEAN  NOT NULL,
    outcome         BYTEA    NOT NULL,             -- the Outcome: zlib-compressed canonical JSON
    state_hash      TEXT     NOT NULL,
    prev_hash       TEXT     NOT NULL,
    hash            TEXT     NOT NULL,
    interaction_id  BIGINT,
    rules_version   INTEGER  NOT NULL DEFAULT 1 CHECK (rules_version >= 1),
    PRIMARY KEY (game_id, seq)
);
-- exactly once, across processes: an interaction delivered twice finds its entry instead of rolling again
CREATE UNIQUE INDEX log_entries_interaction ON log_entries (interaction_id) WHERE interaction_id IS NOT NULL;

CREATE TABLE undo_requests (
    id              BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id         BIGINT  NOT NULL REFERENCES games (id),
    target_seq      INTEGER NOT NULL,
    head_seq        INTEGER NOT NULL,
    head_hash       TEXT    NOT NULL,
    proposer        BIGINT  NOT NULL,
    proposed_at     TEXT    NOT NULL,
    expires_at      TEXT    NOT NULL,
    state_before    TEXT    NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'accepted', 'refused', 'withdrawn', 'expired', 'lapsed')),
    answered_by     BIGINT,
    answered_at     TEXT,
    interaction_id  BIGINT,
    channel_id      BIGINT,
    message_id      BIGINT
);
CREATE UNIQUE INDEX undo_requests_interaction ON undo_requests (interaction_id) WHERE interaction_id IS NOT NULL;
CREATE INDEX undo_requests_by_game ON undo_requests (game_id, status);

-- The last reminder sent to a silent game: one reminder per silence, not one per check, and (by
-- claiming this row before sending) one per game across every bot process.
CREATE TABLE pacing_reminders (
    game_id  BIGINT  PRIMARY KEY REFERENCES games (id),
    seq      INTEGER NOT NULL,
    sent_at  TEXT    NOT NULL
);

-- Results saved but not yet seen (issue 17; SQLite's 0005_unshown_entries.sql says why).
CREATE TABLE unshown_entries (
    game_id     BIGINT  NOT NULL REFERENCES games (id),
    seq         INTEGER NOT NULL,
    channel_id  BIGINT  NOT NULL,
    PRIMARY KEY (game_id, seq)
);
