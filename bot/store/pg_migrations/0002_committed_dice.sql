-- Committed dice, sealed orders and secret rolls (issue 12, docs/dice.md); the same as the SQLite
-- store's migrations/0008_committed_dice.sql: each entry's dice proof (canonical JSON, part of its
-- hash when present) and what the bot holds until its reveal, keyed by the commitment the log publishes.
ALTER TABLE log_entries ADD COLUMN dice_proof TEXT;

CREATE TABLE held_secrets (
    commitment  TEXT PRIMARY KEY,
    secret      BYTEA NOT NULL,
    kept_at     TEXT NOT NULL
);
