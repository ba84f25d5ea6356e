"""What the service's reading commands answer: odds, the games a user plays, a page of the log, what
the map is drawn from, an undo's proposal and answer, a verification; and the server's caps."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from typing import Any

from bot.config import Rate, Settings
from bot.core.game import Game
from bot.core.help import DicePlan
from bot.core.odds import OddsReport
from bot.record import LogEntry
from bot.service.basics import Acted
from bot.store import UndoRequest


@dataclass(frozen=True)
class Odds:
    """Exact odds of an order (``bot.core.odds``), the game they were computed in, and the log
    entry when they are the odds a logged action had before its roll."""

    report: OddsReport
    game: Game
    entry: LogEntry | None = None
    plan: DicePlan | None = None  # the manual dice, in the order the order uses them


@dataclass(frozen=True)
class SeatedGame:
    """A game a user plays in, as /games lists it: where it is, the game, its newest entry's time, the
    side it waits for (``side``) and whether that is the user's (``theirs``)."""

    game_id: int
    channel_id: int
    guild_id: int | None
    game: Game
    since: str
    side: int
    theirs: bool
    # the side it waits for is away (each of its players, /away): until when (the first back), else None
    away_until: str | None = None
    deadline: datetime | None = None  # when its step ends by the deadline (deadline_hours), if one runs


@dataclass(frozen=True)
class LogPage:
    game_id: int
    status: str
    entries: list[LogEntry]  # newest last
    page: int
    pages: int
    total: int
    undone: dict[int, int] = dataclass_field(default_factory=dict)  # seq undone -> seq of the entry undoing it
    regiven: dict[int, int] = dataclass_field(default_factory=dict)  # seq -> the undone entry it gives again


@dataclass(frozen=True)
class Battlefield:
    """What the map of a game is drawn from: the state, the log's head hash (the picture's cache
    key: it fixes the state and the latest fire), the newest entries (seq, order, the Outcome's
    acting side; oldest first) and the seqs among them that were undone."""

    game_id: int
    game: Game
    head_hash: str
    entries: list[dict[str, Any]]
    undone: frozenset[int]


@dataclass(frozen=True)
class UndoProposal:
    """An undo waiting for its answer: the request, the entry it would revert, the game now."""

    request: UndoRequest
    target: LogEntry
    game: Game
    replayed: bool = False

    @property
    def expires_at(self) -> datetime:
        return datetime.fromisoformat(self.request.expires_at)


@dataclass(frozen=True)
class UndoAnswer:
    """What a click on Accept or Refuse did: the proposal's new status, and the reverting entry
    when it was accepted."""

    status: str  # accepted, refused, withdrawn, expired, lapsed
    request: UndoRequest
    acted: Acted | None = None


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    checked: int
    first_bad_seq: int | None
    reason: str


@dataclass(frozen=True)
class ServerCaps:
    """The games one server may have: ``running`` at once, ``started`` in a sliding window
    (REFEREE_MAX_GAMES_PER_SERVER, REFEREE_NEW_GAMES_PER_SERVER). Without them, ending and
    starting games in a loop, or one per thread, fills the database."""

    running: int = Settings.model_fields["max_games_per_server"].default
    started: Rate = Settings.model_fields["new_games_per_server"].default

    @classmethod
    def from_settings(cls, settings: Settings) -> "ServerCaps":
        return cls(settings.max_games_per_server, settings.new_games_per_server)
