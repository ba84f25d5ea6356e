-- Players away (issue 27 item 3: /away until:DATE): one row per user, the latest away they declared,
-- on every server at once (an away is the player's, not a game's). While `until` is ahead, the
-- deadlines and reminders of a side whose every player is away stop (bot/pacing.py), and /game status,
-- the hand-off mentions and /games say "away until ...". /away end sets `until` to the moment it
-- ended, so the clock of a side that waited for its player counts again from his return.
CREATE TABLE away (
    user_id BIGINT PRIMARY KEY,
    since   TEXT NOT NULL,
    until   TEXT NOT NULL,
    reason  TEXT NOT NULL DEFAULT ''
);
