"""Discord's shards, as the bot's processes divide the servers between them.

Discord sends each gateway connection (a shard) the events of the servers whose id gives its number:
``(server_id >> 22) % shard_count`` (https://discord.com/developers/docs/topics/gateway#sharding);
direct messages go to shard 0. It requires a shard per 2,500 servers at most, and recommends a count
with the bot's gateway address (``GET /gateway/bot``: ``shards``), which discord.py reads when no
count is given. A process of a sharded bot serves its own shards only; the stores filter by the
same formula in SQL (``Store.unshown_entries``).
"""

from __future__ import annotations

from dataclasses import dataclass

GUILDS_PER_SHARD = 2_500  # Discord's most servers on one shard; it refuses a connection holding more
RECOMMENDED_PER_SHARD = 1_000  # about how many servers a shard holds in Discord's recommended count


def shard_of(guild_id: int | None, count: int) -> int:
    """The shard Discord sends the server's events to (a direct message, no server: shard 0)."""
    return ((guild_id or 0) >> 22) % count


def shards_needed(servers: int) -> int:
    """The fewest shards Discord accepts for ``servers`` servers (2,500 at most each), at least one."""
    return max(1, -(-servers // GUILDS_PER_SHARD))


@dataclass(frozen=True)
class Shards:
    """The shards one process serves (``ids``, sorted) of the bot's ``count``."""

    ids: tuple[int, ...]
    count: int

    def serves(self, guild_id: int | None) -> bool:
        return shard_of(guild_id, self.count) in self.ids

    @property
    def every(self) -> bool:
        """This process holds every shard: it serves every server."""
        return set(self.ids) == set(range(self.count))


def count_advice(configured: int | None, recommended: int) -> str | None:
    """One line for the host when the shard count is below the one Discord recommends (its
    ``GET /gateway/bot``), or None. ``configured`` None: one unsharded connection."""
    have = configured or 1
    if recommended <= have:
        return None
    setting = "REFEREE_SHARD_COUNT is unset (one connection)" if configured is None else \
        f"REFEREE_SHARD_COUNT is {configured}"
    return (f"Discord recommends {recommended} shards for this bot's servers and {setting}: Discord refuses a shard "
            f"holding more than {GUILDS_PER_SHARD:,} servers ({have * GUILDS_PER_SHARD:,} in all at this count), so "
            f"raise REFEREE_SHARD_COUNT to {recommended} or more before then (REFEREE_SHARD_COUNT=auto: one process "
            "with as many as Discord recommends)")


# Discord's gateway close codes for a shard it will not take, as the host reads them (bot/app.py main_run)
SHARDING_CLOSES = {
    4010: "Discord refused the shard (close code 4010, invalid shard): REFEREE_SHARD_ID(S) must be below "
          "REFEREE_SHARD_COUNT, the same count in every process",
    4011: f"Discord requires more shards (close code 4011): a shard may hold at most {GUILDS_PER_SHARD:,} servers; "
          "set REFEREE_SHARD_COUNT=auto (one process, as many shards as Discord recommends) or a REFEREE_SHARD_COUNT "
          f"of at least one per {GUILDS_PER_SHARD:,} servers, with room to grow, over your processes",
}
