"""How long each side takes to answer, from a game's log: the waits of a slow game, in numbers.

A side's wait is the time from the other side's last entry to the side's own next one: the game
was waiting for it (the hand-off, a fire it had to answer, a request to end a step). Entries of
nobody's side (the game master's set-up and corrections, the creation) neither start nor end a
wait. Players are placed on their side by their ``join`` entries (a substitute by his ``replace``),
as the log records them.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any


@dataclass(frozen=True)
class SideWaits:
    side: int
    waits: tuple[timedelta, ...]  # each time the game waited for this side, in log order

    @property
    def median(self) -> timedelta | None:
        return statistics.median(self.waits) if self.waits else None

    @property
    def longest(self) -> timedelta | None:
        return max(self.waits) if self.waits else None


def side_waits(entries: Iterable[dict[str, Any]]) -> list[SideWaits]:
    """Every side's waits over exported log entries (``LogEntry.export()`` dicts), sides 0 and 1."""
    seats: dict[int, int] = {}
    waits: dict[int, list[timedelta]] = {0: [], 1: []}
    last: tuple[int, datetime] | None = None  # (side, time) of the newest entry of a side
    for entry in entries:
        order = entry.get("order") or {}
        if order.get("action") == "join" and isinstance(order.get("player"), int):
            seats[order["player"]] = order.get("side", 0)
            continue
        if order.get("action") == "replace" and isinstance(order.get("player"), int):
            if order.get("old") in seats:  # a substitute (/game replace): the old player's side is his
                seats[order["player"]] = seats.pop(order["old"])
            continue
        side = seats.get(entry.get("actor"))  # type: ignore[arg-type]
        if side is None:
            continue  # the game master's, or a stranger's: nobody's side
        when = datetime.fromisoformat(entry["time"])
        if last is not None and last[0] != side and side in waits:
            waits[side].append(when - last[1])
        last = (side, when)
    return [SideWaits(side, tuple(found)) for side, found in waits.items()]


def spoken(delta: timedelta | None) -> str:
    """"3 h 20 min", "2 d 4 h", "45 s"; "-" for none."""
    if delta is None:
        return "-"
    seconds = int(delta.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min"
    return f"{secs} s"
