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
