-- Committed dice, sealed orders and secret rolls (issue 12, docs/dice.md).
--
-- log_entries.dice_proof: each entry's dice proof as canonical JSON (the commitment in force, the
-- sides' contributions, the faces of each die drawn from the seed, a seed revealed and the next
-- commitment). It is part of the entry's hash when present; older rows have none and hash as before.
--
-- held_secrets: what the bot holds and must not show before its reveal, keyed by the commitment
-- published in the log (the SHA-256 of a dice seed; of a sealed text with its nonce). Never read
-- by the log's renders or exports: those show only what the log holds.
ALTER TABLE log_entries ADD COLUMN dice_proof TEXT;

CREATE TABLE held_secrets (
    commitment  TEXT PRIMARY KEY,               -- lowercase hex SHA-256, as published in the log
    secret      BLOB NOT NULL,
    kept_at     TEXT NOT NULL
) WITHOUT ROWID;
