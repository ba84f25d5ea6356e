-- Who plays in which game (issue 27: /games lists a player's games on every server the bot shares
-- with them, fast with thousands of games): one row per user seated in a game, on any side. It is
-- written with the game's state, in the same transaction, whenever the seated players change (a
-- join, a leave, an undo of either, a game copied in); the games of a database older than this
-- version are read once at the upgrade (bot/store/sqlite.py: their states are compressed, so this
-- file cannot). /games reads it by user (the primary key), then each game's row by id.
CREATE TABLE seats (
    user_id INTEGER NOT NULL,
    game_id INTEGER NOT NULL REFERENCES games(id),
    PRIMARY KEY (user_id, game_id)
) WITHOUT ROWID;
CREATE INDEX seats_by_game ON seats (game_id);
