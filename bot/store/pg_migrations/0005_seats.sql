-- Who plays in which game (issue 27: /games lists a player's games on every server the bot shares
-- with them, fast with thousands of games): one row per user seated in a game, on any side, written
-- with the game's state, in the same transaction, whenever the seated players change (a join, a
-- leave, an undo of either, a game copied in); the games of a schema older than this one are read
-- once at the upgrade (bot/store/postgres.py). /games reads it by user (the primary key).
CREATE TABLE seats (
    user_id BIGINT NOT NULL,
    game_id BIGINT NOT NULL REFERENCES games(id),
    PRIMARY KEY (user_id, game_id)
);
CREATE INDEX seats_by_game ON seats (game_id);
