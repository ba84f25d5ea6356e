-- Results saved but not yet seen (issue 17). A command's log entry is written before its reply is
-- sent; if the bot dies in between (or Discord refuses the reply), the players never see a roll
-- that stands in the log, and a player who retypes the order rolls twice. So each entry made by
-- an interaction is listed here in the same transaction as the entry itself, and taken off once
-- its result reached the channel; at start-up the bot posts whatever is still listed. The log and
-- its hash chain are untouched.
CREATE TABLE unshown_entries (
    game_id     INTEGER NOT NULL REFERENCES games (id),
    seq         INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
