-- Notifications by direct message (issue 27 item 5: /notify dm:yes): one row per user who chose,
-- on every server at once. A user opted in gets the hand-off mention and the reaction window by DM
-- too, with a link to the channel (bot/replies.py); a DM Discord refuses is dropped silently.
CREATE TABLE notify (
    user_id INTEGER PRIMARY KEY,
    dm      INTEGER NOT NULL                -- 1: by DM too; 0: in the channel only (the default)
) WITHOUT ROWID;
