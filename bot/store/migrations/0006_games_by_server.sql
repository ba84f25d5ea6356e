-- Games per server (issue 17): the service caps the games a server runs at once and starts in a
-- day (REFEREE_MAX_GAMES_PER_SERVER, REFEREE_NEW_GAMES_PER_SERVER). Both counts read this index,
-- so a /game new costs the same on a database of ten games or ten thousand.
CREATE INDEX games_by_guild ON games (guild_id, created_at, status);
