-- Undo by consent and pacing reminders (Issue 4). Additive: the log and its hash chain are
-- untouched; an accepted undo is an ordinary log entry (action "undo") written with the game.

-- A proposal to undo the newest entry, waiting for the other side's answer. It lives here, not
-- in memory, so its Accept/Refuse buttons still work after the bot restarts.
CREATE TABLE undo_requests (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id         INTEGER NOT NULL REFERENCES games (id),
    target_seq      INTEGER NOT NULL,            -- the entry to undo
    head_seq        INTEGER NOT NULL,            -- the log's newest entry when proposed: if the game
    head_hash       TEXT    NOT NULL,            -- moves on before the answer, the proposal lapses
    proposer        INTEGER NOT NULL,
    proposed_at     TEXT    NOT NULL,
    expires_at      TEXT    NOT NULL,
    state_before    TEXT    NOT NULL,            -- the Game before the target entry, replayed from the log
    status          TEXT    NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'accepted', 'refused', 'withdrawn', 'expired', 'lapsed')),
    answered_by     INTEGER,
    answered_at     TEXT,
    interaction_id  INTEGER,                     -- the /undo that proposed it: a redelivery finds it here
    channel_id      INTEGER,                     -- where the proposal was posted: its buttons are
    message_id      INTEGER                      -- taken off when it expires unanswered
);
CREATE UNIQUE INDEX undo_requests_interaction ON undo_requests (interaction_id)
    WHERE interaction_id IS NOT NULL;
CREATE INDEX undo_requests_by_game ON undo_requests (game_id, status);

-- The last reminder sent to a silent game: one reminder per silence, not one per check.
CREATE TABLE pacing_reminders (
    game_id  INTEGER PRIMARY KEY REFERENCES games (id),
    seq      INTEGER NOT NULL,                   -- the newest entry when the reminder went out
    sent_at  TEXT    NOT NULL
);
