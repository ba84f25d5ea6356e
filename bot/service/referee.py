"""``Referee``: the service the cogs, the app's loops and the tools call, made of its parts (each a
module of this package) around one desk (``bot/service/desk.py``: the one way a command opens and is
written down). It holds no logic of its own: each name it answers to is its part's."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from bot.core.dice import DiceSource, new_seed
from bot.service.basics import utc_now
from bot.service.desk import Desk
from bot.service.dice import DiceKeeper
from bot.service.games import Games
from bot.service.hidden import Hidden
from bot.service.logbook import Logbook
from bot.service.orders import Orders
from bot.service.pacing import Pacing
from bot.service.players import Players
from bot.service.replays import Replays
from bot.service.results import ServerCaps
from bot.service.undo import Undo
from bot.store import Store
from bot.work import Worker


class _Of:
    """A name of one of the Referee's parts, answered by the Referee: ``act = _Of("orders")`` makes
    ``referee.act`` the ``act`` of ``referee.orders``. Setting it sets the part's (tests fix
    ``referee.clock``, count ``referee.dice``, slow down ``referee.log_snapshot``), so the part and
    every other part that calls it see the change."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, referee: Any, owner: type | None = None) -> Any:
        return self if referee is None else getattr(getattr(referee, self.part), self.name)

    def __set__(self, referee: Any, value: Any) -> None:
        setattr(getattr(referee, self.part), self.name, value)


class Referee:
    """The referee service: ``Referee(store)`` makes its parts around one desk; ``referee.act(...)``,
    ``referee.seal(...)``, ``referee.log(...)`` and every other command are its parts' own methods."""

    def __init__(self, store: Store, *, dice: Callable[[], DiceSource] | None = None,
                 seeds: Callable[[], bytes] = new_seed, clock: Callable[[], datetime] = utc_now,
                 caps: ServerCaps = ServerCaps(), worker: Worker | None = None):
        # the committed dice and the desk, which every part holds
        self.keeper = DiceKeeper(store, dice, seeds)
        self.desk = Desk(store, self.keeper, clock=clock, worker=worker or Worker())
        self.replays = Replays(self.desk)
        self.logbook = Logbook(self.desk, self.replays)
        self.orders = Orders(self.desk)
        self.pacing = Pacing(self.desk, self.orders)
        self.hidden = Hidden(self.desk)
        self.games = Games(self.desk, self.hidden, caps)
        self.undo = Undo(self.desk, self.replays)
        self.players = Players(self.desk)

    # the settings the parts read (tests change them after construction)
    dice = _Of("keeper")  # None: committed dice; a factory: a fresh source per command
    seeds = _Of("keeper")  # each game turn's secret seed
    clock = _Of("desk")  # where "now" comes from (UTC)
    worker = _Of("desk")  # long work off the event loop
    caps = _Of("games")  # the games one server may have
    undo_minutes = _Of("undo")  # how long an undo proposal waits, unless the game's option says

    # orders and the sequence of play (bot/service/orders.py)
    act = _Of("orders")
    preview = _Of("orders")
    odds = _Of("orders")
    contribute = _Of("orders")
    # pacing (bot/service/pacing.py)
    deadline = _Of("pacing")
    close_reaction = _Of("pacing")
    end_by_deadline = _Of("pacing")
    # hidden information (bot/service/hidden.py)
    seal = _Of("hidden")
    seal_order = _Of("hidden")
    secret_roll = _Of("hidden")
    peek = _Of("hidden")
    reveal = _Of("hidden")
    revealed_hidden = _Of("hidden")
    # a channel's games (bot/service/games.py)
    new_game = _Of("games")
    may_end = _Of("games")
    end_game = _Of("games")
    reopen_game = _Of("games")
    # undo by consent (bot/service/undo.py)
    propose_undo = _Of("undo")
    answer_undo = _Of("undo")
    undo_proposal = _Of("undo")
    note_undo_message = _Of("undo")
    expire_undos = _Of("undo")
    # the record (bot/service/logbook.py) and long work (bot/service/replays.py)
    game = _Of("logbook")
    active = _Of("logbook")
    game_id = _Of("logbook")
    status = _Of("logbook")
    recorded = _Of("desk")
    rolled = _Of("logbook")
    shown = _Of("logbook")
    unshown = _Of("logbook")
    log = _Of("logbook")
    battlefield = _Of("logbook")
    entry = _Of("logbook")
    entry_odds = _Of("logbook")
    export = _Of("logbook")
    log_snapshot = _Of("logbook")
    verify = _Of("logbook")
    run_long = _Of("replays")
    # the players across their games (bot/service/players.py)
    player_games = _Of("players")
    since_last_acted = _Of("players")
    set_away = _Of("players")
    end_away = _Of("players")
    away_now = _Of("players")
    aways = _Of("players")
    set_notify = _Of("players")
    dm_users = _Of("players")
