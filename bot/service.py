"""The referee service: the one path from a cog to the rules core and the store.

For each command it takes the channel's lock, answers a re-delivered interaction from the log
(it never rolls twice), loads the channel's game, checks that the actor may give the order
*before* any die is rolled, resolves it through ``bot.core.api``, and saves the new state with
its hash-chained log entry in one transaction. No Discord code here: actors are plain ids.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import secrets
import weakref
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

from pydantic import BaseModel

from bot.config import Rate, Settings
from bot.core import deadlines, reactions
from bot.core.api import as_given, order_model, resolve
from bot.core.sealed import check_sealable, note_sealed, reveal_sealed, sealed_text
from bot.core.dice import (CommittedDice, DiceSource, Roller, ScriptedDice, SystemDice, commitment, contribution_value,
                           new_seed)
from bot.core.errors import InvalidOrder, RulesError
from bot.core.help import DicePlan, dice_plan
from bot.core.options import created_values, current, general
from bot.core.game import Game
from bot.core.scenario import Scenario, hidden_parts, public_setup
from bot.core.sequence import side_to_act
from bot.core.acting import acting_sides as core_acting_sides
from bot.core.odds import OddsReport
from bot.core.odds import preview as odds_preview
from bot.core.odds import size as odds_size
from bot.core.outcome import Outcome
from bot.core.rulesets import title_of
from bot.loopshare import share
from bot.shards import Shards
from bot.record import GENESIS_HASH, LogEntry, consumed_dice, sealed_state
from bot.record.checkpoint import Checkpoint, newest_live
from bot.record.dice_audit import CONTRIBUTE, DiceState, opened_of, state_after
from bot.record.replay import (END_GAME, OPTION_ORDER, REOPEN_GAME, UNDO, ChainVerifier, ReplayRefused,
                               contribution_outcome, creation_order, creation_outcome, ending_outcome,
                               game_from_creation, given_again, reopen_outcome, undo_outcome, with_option_order)
from bot.record.sealing import (NONCE_BYTES, PEEK, REVEAL, SEAL, SEALED_MAX, check_reveal, peek_outcome,
                                reveal_outcome, roll_text, seal_commitment, seal_outcome)
from bot.store import (ActiveGameExists, Away, DuplicateInteraction, LogFull, StaleGame, Store, StoredGame,
                       UndoRequest)
from bot.work import Pickled, Worker

log = logging.getLogger(__name__)
T = TypeVar("T")
OnLong = Callable[[], Awaitable[Any]] | None  # awaited when the work goes to a process: the cog defers then
READ_BATCH = 100  # entries read per trip to the database when long work reads the log: each batch is only
# copied on the loop (the worker decodes it: bot/work.py's Pickled), a fraction of a millisecond
REPLAY_STEPS = 150  # work steps per replayed entry besides one per unit (bot/work.py): ~3 ms, measured
HASH_STEPS_PER_UNIT = 2  # work steps of hashing a state, per unit: 12 ms for 300 units, measured

MAX_PER_PAGE = 50
UNDO_LOOK_BACK = 64  # entries whose undos an undo proposal reads first (``_newest_live``)
DIGEST_LOOK_BACK = 200  # entries read back to find a side's last one, for the hand-off digest
DIGEST_MOST = 15  # entries a digest shows at most (the newest)
MAP_LOOK_BACK = 50  # entries read back for the latest fire the map draws
OrderBuilder = Callable[[Game], "dict[str, Any] | BaseModel"]
ENTRY_ODDS_CACHED = 64  # answers of the "Odds" button kept, so pressing it again replays nothing
SAVED_BY_INTERACTION = 512  # entries kept by their interaction for the roll limit's question (``rolled``)
DICE_STATES_CACHED = 4096  # games whose dice state (commitment, contributions) is kept in memory
SETUP_STEPS_PER_PART = 20  # bot/work.py's steps a unit or Location of a scenario file costs to set up (0.3 ms measured)
SEEDS_CACHED = 4096  # dice seeds kept in memory (each also held in the store until revealed)
CONTRIBUTION_MAX = 200  # characters of a side's dice contribution
AWAY_MOST_DAYS = 90  # how far ahead an away (/away) may end
AWAY_REASON_MAX = 200  # characters of an away's reason
SECRET_KINDS = {"2d6": "two_d6", "d6": "d6", "d10": "d10", "DR": "DR", "dr": "dr"}  # a secret roll's kind -> Roller
REOPEN_WITHIN = timedelta(days=1)  # how long after its end the game master may reopen a game ended by mistake
UNDO_MINUTES = general("undo_minutes").default  # how long an undo proposal waits (48 hours); the option's default


class NoGame(RulesError):
    """The channel has no game."""


class GameExists(RulesError):
    """The channel already has an active game."""


class NotAllowed(RulesError):
    """The actor may not give this order; the message says why."""


@dataclass(frozen=True)
class Actor:
    user_id: int
    is_manager: bool = False  # Manage Channels on the channel: a game master everywhere
    name: str = ""


@dataclass(frozen=True)
class Acted:
    """What a command did: its Outcome, the game after it, and its log entry."""

    outcome: Outcome
    game: Game
    entry: LogEntry
    replayed: bool = False  # True: a re-delivered interaction, answered from the log
    hand_off: int | None = None  # the side now to act, when this action passed the turn to it
    sealed: tuple["Sealed", ...] = ()  # a scenario file's hidden parts, sealed with the new game (entries 2..)
    regiven: int | None = None  # the entry this order gives again, undone just before it (its dice stay)

    @property
    def seq(self) -> int:
        return self.entry.seq


def _hand_off(before: Game, after: Game) -> int | None:
    """The side now to act, when an action passed the game to it (bot/core/sequence.py)."""
    now = side_to_act(after)
    return now if now != side_to_act(before) else None


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


HIDDEN_SEAL = "/scenario load"  # the command of the seal entries of a scenario file's hidden parts


@dataclass(frozen=True)
class Sealed:
    """A sealed order as its sealer sees it (privately): the logged entry, the text and the nonce."""

    acted: Acted
    text: str
    nonce: str


@dataclass(frozen=True)
class _HeldPart:
    """A scenario file's hidden part, held before the new game's creation seals it (``order``)."""

    order: dict[str, Any]
    text: str
    nonce: str


def _dice_state_after(entry: LogEntry) -> DiceState | None:
    """The dice state in force after ``entry`` (None: a game started before committed dice)."""
    return state_after(entry.order, entry.dice_proof, entry.seq) if entry.dice_proof is not None else None


def _quiet_proof(state: DiceState | None) -> dict[str, Any] | None:
    """The dice proof of an entry that draws no die and reveals nothing: the state in force."""
    if state is None or state.commitment is None:
        return None
    proof: dict[str, Any] = {"commitment": state.commitment, "contributions": list(state.contributions)}
    if state.secret:
        proof["secret"] = list(state.secret)
    return proof


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    checked: int
    first_bad_seq: int | None
    reason: str


# --- permissions -------------------------------------------------------------------------


def acting_sides(game: Game, order: dict[str, Any]) -> dict[int, str]:
    """The sides an order acts for (bot/core/acting.py), each with what in the order made it so."""
    return core_acting_sides(game, order_model(game.ruleset, order.get("action")), order)


def _stamp(when: datetime) -> str:
    """Discord's timestamp markup (each reader's own time zone), with the UTC time for the log."""
    return f"<t:{int(when.timestamp())}:f> ({when.strftime('%Y-%m-%d %H:%M')} UTC)"


def is_game_master(game: Game, actor: Actor) -> bool:
    return actor.is_manager or (game.gm is not None and game.gm == actor.user_id)


def check_hidden_access(game: Game, actor: Actor, seal: LogEntry, what: str) -> None:
    """Raise NotAllowed unless ``actor`` may look at or reveal (``what``) the sealed entry ``seal``
    before its time (issue 28): its sealer and the players of the side that sealed it may; of the
    others only a game master who plays no side, and for a look only while the game option
    gm_peeks allows it. A game master who holds a seat plays against the other side, and someone
    with Manage Channels who is not in the game is not its umpire: neither may."""
    sealed_by = seal.order.get("side")
    if seal.actor == actor.user_id or (isinstance(sealed_by, int) and 0 <= sealed_by < len(game.sides)
                                       and actor.user_id in game.sides[sealed_by].players):
        return
    which = f"sealed #{seal.seq}" + (f" of {game.side_name(sealed_by)}" if isinstance(sealed_by, int) else "")
    mine = [game.side_name(i) for i, side in enumerate(game.sides) if actor.user_id in side.players]
    if mine:
        raise NotAllowed(f"you play {' and '.join(mine)}: you may not {what} {which} before its reveal (only its "
                         "side and a game master who plays no side may)")
    if game.gm is None or game.gm != actor.user_id:
        raise NotAllowed(f"only its side and the game master, playing no side, may {what} {which} before its reveal")
    if what == "look at" and current(game, general("gm_peeks")) is False:
        raise NotAllowed(f"this game's option gm_peeks=no: only its side may look at {which} before its reveal")


def check_manual_dice(game: Game, actor: Actor) -> None:
    """Raise NotAllowed unless ``actor`` may give manual dice in ``game`` (the game option manual_dice:
    all players, only the game master, or nobody); checked before anything is rolled."""
    who = current(game, general("manual_dice"))
    if who == "none":
        raise NotAllowed("this game's option manual_dice=none: the bot draws every die; leave dice: out (the game "
                         "master may allow manual dice with /game options set:manual_dice=all)")
    if who == "gm" and not is_game_master(game, actor):
        raise NotAllowed("this game's option manual_dice=gm: only the game master gives manual dice; leave dice: out "
                         "and the bot draws them")


def check_permission(game: Game, actor: Actor, order: dict[str, Any]) -> None:
    """Raise NotAllowed unless ``actor`` may give ``order`` in ``game`` (checked before any roll)."""
    model = order_model(game.ruleset, order.get("action"))
    game_master = is_game_master(game, actor)

    def consent() -> None:  # whose consent the order needs (a seat, the answer to a request), the GM's too
        refusal = model.refusal_for(game, actor.user_id, game_master, order) if model is not None else None
        if refusal:
            raise NotAllowed(refusal)

    if game_master:
        consent()
        return
    if model is not None and model.for_user is not None:  # an order a user gives for themselves (join, leave)
        consent()
        if order.get(model.for_user) != actor.user_id:
            raise NotAllowed("you may give this only for yourself; the game master acts for others")
        return
    mine = [i for i, side in enumerate(game.sides) if actor.user_id in side.players]
    if not mine:
        raise NotAllowed("only the players of this game give orders here: join a side first "
                         "(anyone may look at the game and its log)")
    gm_only = model.gm_only_in(game) if model is not None else ""
    if gm_only:
        raise NotAllowed(f"only the game master may {gm_only}: it corrects the game, it is not a move")
    for side, what in acting_sides(game, order).items():
        if side not in mine:
            raise NotAllowed(f"{what} belongs to {game.side_name(side)}; you play "
                             f"{' and '.join(game.side_name(i) for i in mine)}")
    consent()


# --- the service -------------------------------------------------------------------------


def _players(game: Game, side: int) -> list[int]:
    return list(game.sides[side].players) if 0 <= side < len(game.sides) else []


def away_spans(away: dict[int, Away]) -> dict[int, tuple[datetime, datetime]]:
    """Each player's latest away as (from, until) times, as bot/core/deadlines.clock_start reads them."""
    return {user: (datetime.fromisoformat(a.since), datetime.fromisoformat(a.until)) for user, a in away.items()}


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _plain_order(order: dict[str, Any] | BaseModel, *, sort_keys: bool = True) -> dict[str, Any]:
    """The order as plain JSON, exactly as it will be logged and replayed: its keys sorted as the
    log's canonical JSON keeps them, so an order naming several fields (``/unit edit
    stats:range=6 kind=squad``) lists them in the same order live and on replay. A game's creation
    keeps its options and scenario in the order given (``sort_keys=False``), as the game keeps
    them (tests/store/test_compact_state.py)."""
    if isinstance(order, BaseModel):
        order = order.model_dump(mode="json")
    if not isinstance(order, dict):
        raise InvalidOrder("an order is a JSON object with an 'action'", field="order")
    try:
        return json.loads(json.dumps(order, sort_keys=sort_keys))
    except (TypeError, ValueError):
        raise InvalidOrder("the order holds a value that is not plain JSON", field="order") from None


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


class _ChannelLock:
    """``async with``: a channel's asyncio lock, then its store's lock (``Store.channel_lock``,
    entered once the first is held), left in the reverse order: what ``async with lock,
    store.channel_lock(channel_id)`` does, as a plain object rather than an
    ``asynccontextmanager`` (issue 14: each of those is an async generator, which asyncio registers
    and finalizes, and three more frames, on every command)."""

    __slots__ = ("lock", "store", "channel_id", "held")

    def __init__(self, lock: asyncio.Lock, store: Store, channel_id: int) -> None:
        self.lock, self.store, self.channel_id = lock, store, channel_id  # the lock kept alive while held
        self.held: contextlib.AbstractAsyncContextManager[None] | None = None

    async def __aenter__(self) -> None:
        await self.lock.acquire()
        try:
            held = self.store.channel_lock(self.channel_id)
            await held.__aenter__()
        except BaseException:
            self.lock.release()
            raise
        self.held = held

    async def __aexit__(self, *exc: Any) -> bool | None:
        held, self.held = self.held, None
        try:
            return await held.__aexit__(*exc)  # type: ignore[union-attr]
        finally:
            self.lock.release()


class Referee:
    def __init__(self, store: Store, *, dice: Callable[[], DiceSource] | None = None,
                 seeds: Callable[[], bytes] = new_seed, clock: Callable[[], datetime] = _utc_now,
                 caps: ServerCaps = ServerCaps(), worker: Worker | None = None):
        self._store = store
        self.worker = worker or Worker()  # long work (replays, previews, exports) off the event loop
        self.caps = caps
        self._server_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        # each command's dice: None, committed dice (docs/dice.md) derived from each game's seed; a
        # factory instead makes a fresh source per command (tests count with one; such dice fail
        # /log verify's dice check)
        self.dice = dice
        self.seeds = seeds  # each game turn's secret seed: ``secrets`` (tests give fixed ones)
        self._dice_states: dict[int, tuple[int, str, DiceState | None]] = {}  # game -> (seq, hash, state)
        self._seed_cache: dict[str, bytes] = {}
        self.clock = clock  # where "now" comes from (UTC): log times, undo expiry, pacing; tests fix it
        self.undo_minutes = UNDO_MINUTES
        # one lock per channel, dropped once no command holds or awaits it
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._entry_odds: dict[tuple[int, int], Odds] = {}  # (game id, seq) -> odds before that entry
        # the entries this process saved last, by their interaction: ``rolled`` answers the roll limit
        # from here without a trip to the store (a logged entry never changes)
        self._saved_by_interaction: dict[int, LogEntry] = {}
        # game -> (seq of its newest undo, the seq it undid, that entry's action and acting side): an
        # order given next of the same action by the same side is marked given again (``given_again``);
        # kept in this process only (after a restart the reply goes unmarked; /log and the exports
        # read the mark from the log itself)
        self._undid: dict[int, tuple[int, int, Any, Any]] = {}

    def _lock(self, channel_id: int) -> _ChannelLock:
        """The channel's commands one at a time: in this process (an asyncio lock), then across
        every process on the store (``Store.channel_lock``: PostgreSQL's advisory lock)."""
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[channel_id] = lock
        return _ChannelLock(lock, self._store, channel_id)

    # --- committed dice (issue 12, docs/dice.md) ---

    async def _dice_state(self, stored: StoredGame) -> DiceState | None:
        """The commitment and contributions in force in ``stored`` (None: a game started before
        committed dice), from the newest entry's proof; kept in memory while the game does not move."""
        known = self._dice_states.get(stored.id)
        if known is not None and known[0] == stored.last_seq and known[1] == stored.head_hash:
            return known[2]
        read = stored.head  # read with the row (``_recorded_or_active``), when the store could
        if read is not None and read[0] == stored.last_seq and read[1] == stored.head_hash:
            head: tuple[dict[str, Any], dict[str, Any] | None] | None = (read[2], read[3])
        else:  # only the newest entry's order and proof: not its outcome (decompressed, parsed) nor a LogEntry
            head = await self._store.head_dice(stored.id, stored.last_seq)
        state = state_after(head[0], head[1], stored.last_seq) if head is not None and head[1] is not None else None
        self._remember_dice(stored.id, stored.last_seq, stored.head_hash, state)
        if stored.seed is not None and state is not None and stored.seed[0] == state.commitment:
            self._hold_seed(*stored.seed)  # the turn's seed, read with the row: no trip for it (``_seed``)
        return state

    def _wants_head(self, game_id: int, seq: int, head_hash: str) -> bool:
        """Whether ``_dice_state`` would read this game's newest entry (its state is not kept): asked
        by the store on its database thread, so the entry comes with the row (a dict read only)."""
        known = self._dice_states.get(game_id)
        return known is None or known[0] != seq or known[1] != head_hash

    def _remember_dice(self, game_id: int, seq: int, head_hash: str, state: DiceState | None) -> None:
        self._dice_states.pop(game_id, None)
        self._dice_states[game_id] = (seq, head_hash, state)
        while len(self._dice_states) > DICE_STATES_CACHED:
            self._dice_states.pop(next(iter(self._dice_states)))

    async def _seed(self, commitment_hex: str) -> bytes:
        seed = self._seed_cache.get(commitment_hex)
        if seed is None:
            seed = await self._store.held_secret(commitment_hex)
            if seed is None or not self._hold_seed(commitment_hex, seed):
                raise NotAllowed("this game's dice seed is not held by the bot (its database was restored without "
                                 "it?): no die can be drawn; give manual dice, or the game master ends the game")
        return seed

    def _hold_seed(self, commitment_hex: str, seed: bytes) -> bool:
        """Keep ``seed`` for its commitment if it is that commitment's (its SHA-256)."""
        if commitment(seed) != commitment_hex:
            return False
        self._seed_cache[commitment_hex] = seed
        while len(self._seed_cache) > SEEDS_CACHED:
            self._seed_cache.pop(next(iter(self._seed_cache)))
        return True

    async def _commit_seed(self) -> str:
        """A new secret seed, held by the store before the entry that publishes its commitment."""
        seed = self.seeds()
        published = commitment(seed)
        await self._store.keep_secret(published, seed)
        self._seed_cache[published] = seed
        return published

    async def _source(self, stored: StoredGame, state: DiceState | None, dice: list[int] | None,
                      interaction_id: int | None) -> DiceSource:
        """Manual dice when given; else the test's factory; else dice derived from the committed seed
        (``secrets`` for a game started before committed dice)."""
        if dice:
            return ScriptedDice(dice)
        if self.dice is not None:
            return self.dice()
        if state is None or state.commitment is None:
            return SystemDice()
        return CommittedDice(await self._seed(state.commitment), game_id=stored.id, seq=stored.last_seq + 1,
                             interaction_id=interaction_id, contributions=state.contributions)

    async def _proof(self, state: DiceState | None, source: DiceSource | None, *, reveal: bool,
                     last: bool = False, game_id: int | None = None) -> dict[str, Any] | None:
        """An entry's dice proof: the state in force, the faces drawn from the seed, and at the end of a
        game turn (``reveal``) or of the game (``last``) the seed revealed with the next commitment, and
        the secret rolls of the turn opened (``opened``: text and nonce of each, from the store)."""
        proof = _quiet_proof(state)
        if proof is None:
            return None
        if isinstance(source, CommittedDice) and source.sides:
            proof["sides"] = list(source.sides)
        if reveal or last:
            proof["reveal"] = (await self._seed(state.commitment)).hex()
            if not last:
                proof["next"] = await self._commit_seed()
            if state.secret and game_id is not None:
                proof["opened"] = [await self._opened(game_id, seq) for seq in state.secret]
        return proof

    async def _opened(self, game_id: int, seq: int) -> dict[str, Any]:
        """A secret roll opened at the end of its game turn: its entry, text and nonce."""
        sealed = await self.entry(game_id, seq)
        held = await self._store.held_secret(sealed.order.get("commitment", ""))
        if held is None:
            raise NotAllowed(f"the dice of secret roll #{seq} are not held by the bot: the game turn cannot end "
                             "with them revealed (the game master ends the game)")
        opened = json.loads(held)
        return {"sealed": seq, "text": opened["text"], "nonce": opened["nonce"]}

    # --- reading ---

    async def _active(self, channel_id: int) -> StoredGame:
        stored = await self._store.load_active(channel_id)
        if stored is None:
            raise NoGame("There is no game in this channel: start one with /game new")
        return stored

    async def _latest(self, channel_id: int) -> StoredGame:
        stored = await self._store.load_latest(channel_id)
        if stored is None:
            raise NoGame("There is no game in this channel: start one with /game new")
        return stored

    async def game(self, channel_id: int) -> Game:
        return (await self._active(channel_id)).game

    async def active(self, channel_id: int) -> StoredGame:
        """The channel's active game as stored: its id and its Game in one read of the database
        (``game`` and ``game_id`` one after the other are two: /game status, the busiest command)."""
        return await self._active(channel_id)

    async def status(self, channel_id: int, recent: int = 3) -> tuple[StoredGame, list[LogEntry], frozenset[int]]:
        """The channel's active game, its newest ``recent`` log entries and which of them are undone
        (/game status: what changed lately)."""
        stored = await self._active(channel_id)
        after = max(0, stored.last_seq - recent)
        entries = await self._store.entries(stored.id, after_seq=after, limit=recent)
        undone = await self._store.undone(stored.id, after_seq=after)
        return stored, entries, frozenset(undone)

    async def game_id(self, channel_id: int) -> int:
        """The id of the channel's active game (buttons name it, so an old game's button says so)."""
        return (await self._active(channel_id)).id

    async def recorded(self, interaction_id: int | None) -> Acted | None:
        """The answer already given to this interaction, if it was logged (a re-delivery, or a reply
        Discord refused after the result was saved)."""
        if interaction_id is None:
            return None
        found = await self._store.load_recorded(interaction_id)
        if found is None:
            return None
        entry, stored = found
        return Acted(entry.outcome_model(), stored.game, entry, replayed=True)

    async def rolled(self, interaction_id: int) -> bool | None:
        """Whether this interaction's order is in the log with dice (None: it is not logged), for
        the roll limit after each rolling command: an entry this process just saved is answered
        without reading the store (issue 14: two trips to the database thread a command fewer)."""
        entry = self._saved_by_interaction.get(interaction_id)
        if entry is None:
            entry = await self._store.entry_by_interaction(interaction_id)
        return None if entry is None else bool(entry.dice)

    async def shown(self, acted: Acted) -> None:
        """``acted``'s result reached its channel (the reply, or the channel post standing in)."""
        await self._store.entry_shown(acted.entry.game_id, acted.entry.seq)

    async def unshown(self, limit: int = 100, *, before: datetime | None = None,
                      shards: Shards | None = None) -> list[tuple[int, Acted]]:
        """(channel, result) of what was saved but never seen: the bot died between the save and
        the reply, or Discord refused the reply and the channel post failed too. ``before``: only
        entries logged before then (a process starting asks for what was saved before it started:
        a command it answers meanwhile is its own to show); ``shards``: only the games of the
        servers this process serves (another process shows its own). Both filter in the store's query."""
        found = []
        for channel_id, entry in await self._store.unshown_entries(limit, before=before, shards=shards):
            stored = await self._store.load_game(entry.game_id)
            assert stored is not None  # entries reference their game (foreign key)
            found.append((channel_id, Acted(entry.outcome_model(), stored.game, entry, replayed=True)))
        return found

    async def _recorded_or_active(self, channel_id: int, interaction_id: int | None) -> Acted | StoredGame:
        """The answer already given to this interaction if it was logged, else the channel's
        active game: what ``_recorded`` then ``_active`` give, in one read of the store (issue 5:
        every trip to the database thread is paid by all the channels waiting on it)."""
        entry, stored = await self._store.load_for_command(channel_id, interaction_id, head_for=self._wants_head)
        if entry is not None:
            assert stored is not None  # entries reference their game (foreign key)
            return Acted(entry.outcome_model(), stored.game, entry, replayed=True)
        if stored is None:
            raise NoGame("There is no game in this channel: start one with /game new")
        return stored

    # --- writing ---

    def _seal(self, stored_id: int, last_seq: int, head_hash: str, *, actor: Actor, command: str,
              order: dict[str, Any], outcome: Outcome, game: Game, manual: bool,
              interaction_id: int | None, dice_proof: dict[str, Any] | None = None) -> LogEntry:
        return LogEntry.seal(
            prev_hash=head_hash, game_id=stored_id, seq=last_seq + 1,
            time=self.clock().isoformat(timespec="milliseconds"), actor=actor.user_id,
            command=command, order=order, dice=consumed_dice(outcome), manual=manual,
            outcome=outcome, state_hash=sealed_state(game),
            interaction_id=interaction_id, dice_proof=dice_proof)

    def _check_room(self, stored: StoredGame) -> None:
        if stored.last_seq >= self._store.max_entries:
            raise self._log_full()

    def _log_full(self) -> NotAllowed:
        return NotAllowed(f"this game's log is full ({self._store.max_entries} entries, the most one "
                          "game keeps): the game master can end it with /game end and start another")

    async def _save(self, stored: StoredGame, game: Game, entry: LogEntry, *, end: bool = False) -> Acted | None:
        """Save state + entry; a re-delivered interaction that won the race returns its answer."""
        try:
            if end:
                await self._store.end_game(stored, entry)
            else:
                await self._store.append(stored, game, entry)
        except DuplicateInteraction:
            return await self.recorded(entry.interaction_id)
        except StaleGame:
            raise NotAllowed("the game changed while this order was being resolved; nothing was "
                             "saved: give the order again") from None
        except LogFull:
            raise self._log_full() from None
        self._saved(stored.id, entry)
        return None

    def _saved(self, game_id: int, entry: LogEntry) -> None:
        """Keep the dice state in force after ``entry``, the game's newest (the next command's), and
        the entry by its interaction (``rolled``)."""
        self._remember_dice(game_id, entry.seq, entry.hash, _dice_state_after(entry))
        if entry.interaction_id is not None:
            while len(self._saved_by_interaction) >= SAVED_BY_INTERACTION:
                del self._saved_by_interaction[next(iter(self._saved_by_interaction))]  # the oldest first
            self._saved_by_interaction[entry.interaction_id] = entry

    async def new_game(self, channel_id: int, guild_id: int | None, actor: Actor, ruleset: str,
                       sides: list[str], scenario: str = "", variant: str | None = None,
                       options: dict[str, Any] | None = None, interaction_id: int | None = None,
                       setup: Scenario | None = None) -> Acted:
        """A new game in the channel; ``setup``: a scenario file's whole set-up (checked by
        ``bot.scenario.read``), made in this one entry, so a bad file creates nothing."""
        # the server's games are counted and the new one created under the server's lock, so two
        # /game new at once in one server cannot both take its last place: in this process (an
        # asyncio lock) and across processes (Store.server_lock: PostgreSQL's advisory lock)
        server_lock = self._server_lock(guild_id) if guild_id is not None else contextlib.nullcontext()
        store_server_lock = (self._store.server_lock(guild_id) if guild_id is not None
                             else contextlib.nullcontext())
        async with server_lock, store_server_lock, self._lock(channel_id):
            if (done := await self.recorded(interaction_id)) is not None:
                return done
            existing = await self._store.load_active(channel_id)
            if existing is not None:
                raise GameExists(self._exists_message(existing.game))
            if guild_id is not None:
                await self._check_server_caps(guild_id)
            if setup is not None:  # a game set up from a file takes the options a new game takes too
                setup = setup.model_copy(update={"options": created_values(setup.options) | dict(setup.options)})
                ruleset, sides, scenario = setup.ruleset, [s.name for s in setup.sides], setup.title
                variant, options = setup.variant, dict(setup.options)
            order = _plain_order(creation_order(ruleset, sides, scenario, variant, options, actor.user_id,
                                                setup=None if setup is None else public_setup(setup)),
                                 sort_keys=False)
            if setup is None:
                game = game_from_creation(order)  # the same path verify replays
            else:  # a file's set-up (up to 400 units, 2,000 Locations: most of a second) off the loop
                game = await self.worker.run(
                    game_from_creation, order, cost=SETUP_STEPS_PER_PART * (len(setup.locations) + sum(
                        len(side.units) for side in setup.sides)),
                    what="setting up this scenario", instead="load a scenario of fewer units and Locations")
            order = with_option_order(order, game)  # the log sorts the options' names: the replay reorders them
            outcome = creation_outcome(game)
            # the first game turn's seed: its commitment is in entry 1, posted with the new game
            proof = ({"commitment": await self._commit_seed(), "contributions": [""] * len(game.sides)}
                     if self._store.holds_secrets else None)
            hidden = await self._hold_hidden(game, actor, setup)
            made: list[LogEntry] = []

            def first_entries(game_id: int) -> list[LogEntry]:
                made.clear()  # the callback runs once per transaction: its entries only
                made.append(self._seal(game_id, 0, GENESIS_HASH, actor=actor, command="/game new", order=order,
                                       outcome=outcome, game=game, manual=False, interaction_id=interaction_id,
                                       dice_proof=proof))
                for held in hidden:  # each hidden part's seal entry, as /seal would write it for its side
                    last = made[-1]
                    made.append(self._seal(game_id, last.seq, last.hash, actor=actor, command=HIDDEN_SEAL,
                                           order=held.order, outcome=seal_outcome(game, last.seq + 1, held.order),
                                           game=game, manual=False, interaction_id=None,
                                           dice_proof=_quiet_proof(_dice_state_after(last))))
                return made
            try:
                _stored, entry = await self._store.create_game(channel_id, guild_id, game, first_entries)
            except ActiveGameExists:  # another process created one since the check above
                existing = await self._store.load_active(channel_id)
                raise GameExists(self._exists_message(existing.game if existing else game)) from None
            except DuplicateInteraction:
                return await self.recorded(interaction_id)  # type: ignore[return-value]
            self._saved(entry.game_id, made[-1])
            return Acted(outcome, game, entry, sealed=tuple(
                Sealed(Acted(seal_entry.outcome_model(), game, seal_entry), held.text, held.nonce)
                for held, seal_entry in zip(hidden, made[1:])))

    async def _hold_hidden(self, game: Game, actor: Actor, setup: Scenario | None) -> list[_HeldPart]:
        """A scenario file's hidden parts, each to be sealed for its side in the new game's creation:
        its nonce and commitment, the text and nonce held by the store *before* the transaction that
        publishes the commitment. A secret kept for a commitment that never lands (the creation
        failed, or lost a race) is harmless: nothing points to it, nothing ever reads it."""
        held = []
        for side, text in (hidden_parts(setup) if setup is not None else {}).items():
            self._acting_side(game, actor, side, "seal orders")  # the loader is the new game's master
            if not 1 <= len(text) <= SEALED_MAX:
                raise InvalidOrder(f"a sealed order is 1 to {SEALED_MAX} characters", field="text")
            published, nonce = await self._keep_sealed(text)
            held.append(_HeldPart({"action": SEAL, "side": side, "commitment": published}, text, nonce))
        return held

    def _server_lock(self, guild_id: int) -> asyncio.Lock:
        lock = self._server_locks.get(guild_id)
        if lock is None:
            lock = self._server_locks[guild_id] = asyncio.Lock()
        return lock

    async def _check_server_caps(self, guild_id: int) -> None:
        window = self.caps.started
        games = await self._store.server_games(guild_id, window.seconds if not window.off else 0)
        if games.running >= self.caps.running:
            raise NotAllowed(f"this server has {games.running} games running, the most one server may: the game "
                             "master of one can end it with /game end (the bot's host sets this number)")
        if not window.off and games.started >= window.count and games.first_started is not None:
            next_at = datetime.fromisoformat(games.first_started) + timedelta(seconds=window.seconds)
            raise NotAllowed(f"this server started {games.started} games in the last "
                             f"{window.window_words}, the most one server may: the next may start "
                             f"<t:{int(next_at.timestamp()) + 1}:R> (the bot's host sets this number)")

    @staticmethod
    def _exists_message(game: Game) -> str:
        title = title_of(game.ruleset)
        return (f"There is already a game in this channel ({title}, {game.sides[0].name} vs "
                f"{game.sides[1].name}, turn {game.turn}): the game master can end it with /game end, "
                "or start the new one in a thread")

    async def preview(self, channel_id: int, actor: Actor, order: dict[str, Any] | OrderBuilder) -> OddsReport:
        """The exact odds of ``order`` before anyone rolls (issue 5): the same permission check as
        ``act``, the order refused exactly as it would be, no die rolled and nothing logged."""
        return (await self.odds(channel_id, actor, order)).report

    async def odds(self, channel_id: int, actor: Actor, order: dict[str, Any] | OrderBuilder,
                   on_long: OnLong = None) -> Odds:
        """``preview`` with the game the odds were computed in (for rendering). ``order`` may be
        a function of the game, as in ``act``: it is built under the channel's lock, so it sees
        the same game a roll would; the odds are then enumerated outside the lock, on that
        snapshot (the channel's next command need not wait for them). The size of the enumeration
        is estimated first: too large, it is refused at once with the numbers; else it runs in a
        worker process within the time budget when it is more than a moment's work."""
        async with self._lock(channel_id):
            stored = await self._active(channel_id)
            plain = _plain_order(order(stored.game) if callable(order) else order)
            check_permission(stored.game, actor, plain)
            plain = _plain_order(as_given(stored.game, plain))  # what the log holds and a replay resolves
        estimate = odds_size(stored.game, plain)  # refused now, before anything is enumerated
        cost = estimate * PREVIEW_STEPS
        report, plan = await self.worker.run(
            preview_with_plan, stored.game, plain, cost=cost, on_long=on_long, what="this preview",
            instead="preview an attack on a smaller stack, or roll it")
        return Odds(report, stored.game, plan=plan)

    async def entry(self, game_id: int, seq: int) -> LogEntry:
        """One entry of a game's log, as logged (the Details button of a result)."""
        entry = next(iter(await self._store.entries(game_id, after_seq=seq - 1, limit=1)), None)
        if entry is None or entry.seq != seq:
            raise NotAllowed(f"entry #{seq} of this game is not in the log")
        return entry

    async def entry_odds(self, game_id: int, seq: int, on_long: OnLong = None) -> Odds:
        """The exact odds a logged action had before it was rolled (the "Odds" button on a
        result). Only the newest state is stored, so the state before entry ``seq`` is rebuilt by
        replaying the log up to ``seq - 1`` (in a worker process when long) and checked against
        the state hash that entry recorded; answers are cached (entries never change: the log is
        append-only)."""
        key = (game_id, seq)
        if (known := self._entry_odds.get(key)) is not None:
            return known
        entry = await self.entry(game_id, seq)
        model = order_model(entry.outcome.get("ruleset", ""), entry.order.get("action"))
        if model is None or not model.previewable:
            raise NotAllowed(f"entry #{seq} ({entry.command}) is not an attack or a check: it has no odds")
        found = await self._replayed(
            odds_before, game_id, seq - 1, entry, game=None, on_long=on_long,
            what=lambda count: f"working out the odds of entry #{seq} (a replay of the {count:,} entries before it)",
            instead="ask for the odds of a newer entry, or export the log (/log export format:JSON) and "
                    "replay it on your own computer with python -m bot rules replay")
        self._entry_odds[key] = found
        while len(self._entry_odds) > ENTRY_ODDS_CACHED:
            self._entry_odds.pop(next(iter(self._entry_odds)))  # the oldest answer goes first
        return found

    async def _before_long(self, cost: float, on_long: OnLong) -> None:
        """Work of this cost goes to a worker process: say so (``on_long``: the cog defers) before
        reading what it needs, which takes a moment on a long log."""
        if on_long is not None and self.worker.is_long(cost):
            await on_long()

    async def _replayed(self, fn: Callable[..., T | None], game_id: int, upto_seq: int, *args: Any, game: Game | None,
                        what: Callable[[int], str], instead: str, on_long: OnLong) -> T:
        """``fn(start, entries, *args)`` within the time budget (in a worker process when long): a
        replay up to entry ``upto_seq`` from ``start`` (``ReplayStart``: the newest checkpoint at or
        before it, issue 14, else entry 1) through the entries after it. So an undo or an Odds press
        replays at most a checkpoint interval of entries. The checkpoint's state is hashed in the
        job, off the loop (12 ms for 300 units); a job whose checkpoint does not check out answers
        None, and the replay is done again from entry 1. ``game`` (else the checkpoint's state, else
        the stored game) sizes the work; ``what(entries)`` says what was too long."""
        checkpoint = await self._store.checkpoint_before(game_id, upto_seq)
        if checkpoint is not None and not checkpoint.reaches(upto_seq):
            checkpoint = None  # its kept stack does not reach every undo up to there
        for start in (ReplayStart(checkpoint, upto_seq), ReplayStart(None, upto_seq)):
            if game is None and start.checkpoint is not None:
                game = start.checkpoint.state
            elif game is None:
                stored = await self._store.load_game(game_id)
                assert stored is not None  # a checkpoint or an entry references its game
                game = stored.game
            await self._before_long(replay_cost(upto_seq - start.after, game), on_long)  # "thinking..." first
            entries = await self._snapshot(game_id, upto_seq, after_seq=start.after)
            found = await self.worker.run(fn, start, entries, *args, cost=replay_cost(len(entries), game, hashed=True),
                                          what=what(len(entries)), instead=instead)
            if found is not None or start.checkpoint is None:
                return found
            log.warning("checkpoint at entry #%s of game %s does not match its entry: replaying from entry 1",
                        start.after, game_id)
        raise AssertionError("unreachable: the replay from entry 1 answers")

    async def _snapshot(self, game_id: int, upto_seq: int, each: Callable[[int, dict], None] | None = None, *,
                        after_seq: int = 0) -> Pickled[LogEntry]:
        """The entries after ``after_seq`` up to ``upto_seq`` of a game, read in small batches as
        the database holds them (pickled on the loop, a copy of bytes; the worker decodes them:
        bot/work.py's ``Pickled``): a consistent snapshot without any lock, as entries never change
        once written. ``each(actor, order)`` sees every entry's actor and order."""
        found: Pickled[LogEntry] = Pickled()
        after = after_seq
        while after < upto_seq:
            batch = await self._store.entry_rows(game_id, after_seq=after, limit=min(READ_BATCH, upto_seq - after))
            found.add(batch.rows, batch.decode)
            for row in batch.rows if each is not None else ():
                each(*batch.head(row))
            if len(batch.rows) < min(READ_BATCH, upto_seq - after) or batch.last_seq is None:
                break
            after = batch.last_seq
            await asyncio.sleep(0)  # the other channels' commands between two batches
        return found

    async def act(self, channel_id: int, actor: Actor, order: dict[str, Any] | OrderBuilder, *,
                  dice: list[int] | None = None, command: str, interaction_id: int | None = None,
                  after_seq: int | None = None) -> Acted:
        """Resolve ``order`` in the channel's game and save the result with its log entry.

        ``order`` may be a function of the game (a cog's options mean different orders in
        different rulesets): it is called under the channel's lock, after a re-delivered
        interaction has been answered from the log, so a replay never depends on today's game.
        ``after_seq``: refused unless the game's newest entry is still that one (the referee's own
        order for a game it looked at a moment before: nothing happened in between)."""
        async with self._lock(channel_id):
            stored = await self._recorded_or_active(channel_id, interaction_id)
            if isinstance(stored, Acted):
                return stored
            if after_seq is not None and stored.last_seq != after_seq:
                raise NotAllowed(f"the game moved on after entry #{after_seq}: nothing was done")
            self._check_room(stored)
            plain = _plain_order(order(stored.game) if callable(order) else order)
            check_permission(stored.game, actor, plain)
            if dice:
                check_manual_dice(stored.game, actor)
            plain = _plain_order(as_given(stored.game, plain))  # what the log holds and a replay resolves
            corrects = plain.get("corrects")
            if corrects is not None and not (isinstance(corrects, int) and 1 < corrects <= stored.last_seq):
                raise InvalidOrder(f"the log has entries #2 to #{stored.last_seq} to correct, not '{corrects}'",
                                   field="corrects")
            state = await self._dice_state(stored)
            source = await self._source(stored, state, dice, interaction_id)
            # from here to the save (the rules core, the seal) runs on: other channels' turns first if due
            await share()
            resolution = resolve(stored.game, plain, source)
            # the end of a game turn reveals its seed (anyone may then check its dice) and commits the next
            proof = await self._proof(state, source, reveal=resolution.game.turn > stored.game.turn,
                                      game_id=stored.id)
            entry = self._seal(stored.id, stored.last_seq, stored.head_hash, actor=actor, command=command,
                               order=plain, outcome=resolution.outcome, game=resolution.game,
                               manual=bool(dice), interaction_id=interaction_id, dice_proof=proof)
            recorded = await self._save(stored, resolution.game, entry)
            undid = self._undid.get(stored.id)
            regiven = given_again({undid[1]: undid[0]}, entry.seq, plain.get("action"), resolution.outcome.actor_side,
                                  lambda seq: undid[2:]) if undid is not None else None
            return recorded or Acted(resolution.outcome, resolution.game, entry,
                                     hand_off=_hand_off(stored.game, resolution.game), regiven=regiven)

    async def close_reaction(self, channel_id: int, seq: int, actor: Actor) -> Acted | None:
        """Close the channel's open reaction window as no reaction, its time limit (the game option
        reactions=hours=N) having passed since entry ``seq``, the newest: a logged ``react`` order
        given by ``actor`` (the bot). None when the game moved on meanwhile or no such window is open."""

        def order(game: Game) -> dict[str, Any]:
            hours = reactions.timeout_hours(game)
            if hours is None or game.reaction is None:
                raise NotAllowed("no reaction window with a time limit is open")
            return {"action": "react", "side": game.reaction.side, "answer": "timeout", "hours": hours}

        try:
            return await self.act(channel_id, actor, order, command="/react (time limit)", after_seq=seq)
        except RulesError:
            return None

    async def may_end(self, channel_id: int, actor: Actor) -> StoredGame:
        """The channel's active game, when ``actor`` may end it (asked before the confirmation)."""
        stored = await self._active(channel_id)
        if not is_game_master(stored.game, actor):
            raise NotAllowed("only the game master (who started the game) or someone with Manage "
                             "Channels may end the game")
        return stored

    async def end_by_deadline(self, channel_id: int, seq: int, actor: Actor) -> Acted | RulesError | None:
        """End the step of the side the game waits for with its default (no fire for an open reaction
        window, else its /done), its deadline (the game option deadline_hours) having passed since entry
        ``seq``, the newest: a logged order given by ``actor`` (the bot). None when the game moved on
        meanwhile (another process, or a late order, did); the refusal when the rules do not let the
        step end by itself (a roll it still requires)."""

        def order(game: Game) -> dict[str, Any]:
            if deadlines.limit(game) is None:
                raise NotAllowed("no deadline runs in this game")
            return deadlines.default_order(game)

        try:
            return await self.act(channel_id, actor, order, command="/done (deadline)", after_seq=seq)
        except NotAllowed:
            return None  # moved on, paused, or no deadline any more: nothing to do
        except RulesError as exc:
            return exc

    async def end_game(self, channel_id: int, actor: Actor, interaction_id: int | None = None, *,
                       game_id: int | None = None) -> Acted:
        """End the channel's game (``game_id``: only if it is still that one, the game a confirmation
        was asked for)."""
        async with self._lock(channel_id):
            stored = await self._recorded_or_active(channel_id, interaction_id)
            if isinstance(stored, Acted):
                return stored
            if game_id is not None and stored.id != game_id:
                raise NotAllowed("this confirmation was asked for an earlier game of this channel: nothing was ended")
            if not is_game_master(stored.game, actor):
                raise NotAllowed("only the game master (who started the game) or someone with Manage "
                                 "Channels may end the game")
            # no room check: a full log must still be closable (the cap leaves room for the end)
            outcome = ending_outcome(stored.game)
            proof = await self._proof(await self._dice_state(stored), None, reveal=False, last=True,
                                      game_id=stored.id)
            entry = self._seal(stored.id, stored.last_seq, stored.head_hash, actor=actor, command="/game end",
                               order={"action": END_GAME}, outcome=outcome, game=stored.game, manual=False,
                               interaction_id=interaction_id, dice_proof=proof)
            recorded = await self._save(stored, stored.game, entry, end=True)
            return recorded or Acted(outcome, stored.game, entry)

    async def reopen_game(self, channel_id: int, actor: Actor, interaction_id: int | None = None) -> Acted:
        """Reopen the channel's last game, ended by mistake: the game master only, within REOPEN_WITHIN
        of its end, while no other game has started in the channel. One logged entry after the end;
        a new dice seed is committed for the rest of the game (the end revealed the last one)."""
        async with self._lock(channel_id):
            if (done := await self.recorded(interaction_id)) is not None:
                return done
            if await self._store.load_active(channel_id) is not None:
                raise NotAllowed("this channel has a game in play: only a game ended by mistake is reopened, "
                                 "before another one starts here")
            stored = await self._latest(channel_id)
            if not is_game_master(stored.game, actor):
                raise NotAllowed("only the game master (who started the game) or someone with Manage Channels may "
                                 "reopen it")
            (end,) = await self._store.entries(stored.id, after_seq=stored.last_seq - 1, limit=1)
            if end.order.get("action") != END_GAME:
                raise NotAllowed(f"the last game's newest entry (#{end.seq}) is not its end: nothing to reopen")
            ended = datetime.fromisoformat(end.time)
            hours = REOPEN_WITHIN / timedelta(hours=1)
            if self.clock() - ended > REOPEN_WITHIN:
                raise NotAllowed(f"this game ended at {_stamp(ended)}, more than {hours:g} hours ago: a game is "
                                 f"reopened within {hours:g} hours of its end; its log stays readable (/log show, "
                                 "/log export), and /game new starts another")
            self._check_room(stored)
            state = await self._dice_state(stored)
            proof = None if state is None else {"commitment": await self._commit_seed(),
                                                "contributions": list(state.contributions)}
            order = {"action": REOPEN_GAME, "ended": end.seq}
            outcome = reopen_outcome(stored.game, order)
            entry = self._seal(stored.id, stored.last_seq, stored.head_hash, actor=actor, command="/game reopen",
                               order=order, outcome=outcome, game=stored.game, manual=False,
                               interaction_id=interaction_id, dice_proof=proof)
            try:
                await self._store.reopen_game(stored, entry)
            except DuplicateInteraction:
                return await self.recorded(interaction_id)  # type: ignore[return-value]
            except ActiveGameExists:
                raise NotAllowed("another game started in this channel meanwhile: this one stays ended") from None
            except StaleGame:
                raise NotAllowed("the game changed while it was being reopened; nothing was saved") from None
            self._saved(stored.id, entry)
            return Acted(outcome, stored.game, entry)

    async def contribute(self, channel_id: int, actor: Actor, text: str, side: int | None = None, *,
                         interaction_id: int | None = None) -> Acted:
        """Set or change a side's contribution to the dice (docs/dice.md): every die drawn after it
        derives from it too. A player sets their own side's; the game master names the side."""
        if not 1 <= len(text) <= CONTRIBUTION_MAX:
            raise InvalidOrder(f"a contribution is 1 to {CONTRIBUTION_MAX} characters of your choosing",
                               field="text")
        async with self._lock(channel_id):
            stored = await self._recorded_or_active(channel_id, interaction_id)
            if isinstance(stored, Acted):
                return stored
            self._check_room(stored)
            game = stored.game
            mine = [i for i, s in enumerate(game.sides) if actor.user_id in s.players]
            if side is None:
                if not mine:
                    raise NotAllowed("only the players of this game add to its dice: join a side first (the game "
                                     "master names the side)")
                side = mine[0]
            elif side not in mine and not is_game_master(game, actor):
                raise NotAllowed(f"you may set only your own side's contribution; {game.side_name(side)} sets its own")
            if not 0 <= side < len(game.sides):
                raise InvalidOrder(f"this game has {len(game.sides)} sides", field="side")
            state = await self._dice_state(stored)
            if state is None:
                raise NotAllowed("this game was started before committed dice: its dice take no contribution "
                                 "(a new game has them)")
            order = {"action": CONTRIBUTE, "side": side, "value": contribution_value(text)}
            outcome = contribution_outcome(game, order)
            entry = self._seal(stored.id, stored.last_seq, stored.head_hash, actor=actor, command="/dice contribute",
                               order=order, outcome=outcome, game=game, manual=False,
                               interaction_id=interaction_id, dice_proof=await self._proof(state, None, reveal=False))
            recorded = await self._save(stored, game, entry)
            return recorded or Acted(outcome, game, entry)

    # --- sealed orders (bot/record/sealing.py) ---

    def _acting_side(self, game: Game, actor: Actor, side: int | None, what: str) -> int | None:
        mine = [i for i, s in enumerate(game.sides) if actor.user_id in s.players]
        if side is None:
            if mine:
                return mine[0]
            if is_game_master(game, actor):
                return None  # the game master's own
            raise NotAllowed(f"only the players of this game and its game master may {what}: join a side first")
        if not 0 <= side < len(game.sides):
            raise InvalidOrder(f"this game has {len(game.sides)} sides", field="side")
        if side not in mine and not is_game_master(game, actor):
            raise NotAllowed(f"you play {' and '.join(game.side_name(i) for i in mine) or 'no side'}; "
                             f"only the players of {game.side_name(side)} and the game master may {what} for it")
        return side

    async def _keep_sealed(self, text: str) -> tuple[str, str]:
        """A fresh nonce for ``text`` and its commitment (SHA-256 of nonce and text), the text and the
        nonce kept by the store until the reveal: returns the commitment and the nonce (hex)."""
        nonce = secrets.token_bytes(NONCE_BYTES)
        published = seal_commitment(nonce, text)
        await self._store.keep_secret(published, json.dumps({"nonce": nonce.hex(), "text": text}).encode())
        return published, nonce.hex()

    async def _sealed_again(self, acted: Acted) -> Sealed:
        """A re-delivered seal or secret roll: the entry from the log, the text and nonce from the store."""
        held = await self._store.held_secret(acted.entry.order.get("commitment", ""))
        opened = json.loads(held) if held else {"text": "", "nonce": ""}
        return Sealed(acted, opened["text"], opened["nonce"])

    async def _save_sealed(self, stored: StoredGame, actor: Actor, text: str, side: int | None,
                           more: dict[str, Any], *, command: str, state: DiceState | None,
                           interaction_id: int | None, after: Game | None = None,
                           notes: list[tuple[str, str]] = ()) -> Sealed:
        """Log a seal (``/seal``, a sealed order of the sequence of play, a secret roll): ``text`` kept
        with a fresh nonce until its reveal, the entry naming the side and the commitment (then
        ``more`` of the order), under the dice ``state`` in force; ``after``: the game as the seal
        leaves it (the same game when None), ``notes`` for its outcome. Under the channel's lock."""
        published, nonce = await self._keep_sealed(text)
        order = {"action": SEAL, "side": side, "commitment": published, **more}
        game = stored.game if after is None else after
        outcome = seal_outcome(stored.game, stored.last_seq + 1, order, notes)
        entry = self._seal(stored.id, stored.last_seq, stored.head_hash, actor=actor, command=command,
                           order=order, outcome=outcome, game=game, manual=False, interaction_id=interaction_id,
                           dice_proof=await self._proof(state, None, reveal=False))
        recorded = await self._save(stored, game, entry)
        return Sealed(recorded or Acted(outcome, game, entry), text, nonce)

    async def seal(self, channel_id: int, actor: Actor, text: str, side: int | None = None, *,
                   interaction_id: int | None = None) -> Sealed:
        """Seal a hidden order: the log gets its commitment and who sealed it, never the text."""
        if not 1 <= len(text) <= SEALED_MAX:
            raise InvalidOrder(f"a sealed order is 1 to {SEALED_MAX} characters", field="text")
        async with self._lock(channel_id):
            stored = await self._recorded_or_active(channel_id, interaction_id)
            if isinstance(stored, Acted):  # a re-delivery: the sealer's copy comes from the store again
                return await self._sealed_again(stored)
            self._check_room(stored)
            game = stored.game
            side = self._acting_side(game, actor, side, "seal orders")
            return await self._save_sealed(stored, actor, text, side, {}, command="/seal",
                                           state=await self._dice_state(stored), interaction_id=interaction_id)

    async def seal_order(self, channel_id: int, actor: Actor, order: dict[str, Any] | OrderBuilder, *,
                         interaction_id: int | None = None) -> Sealed:
        """Seal an order of the ruleset to be revealed later in the sequence of play (bot/core/sealed.py:
        orders for the next turn, with the game option sealed_orders). It is checked now, privately; the
        log gets the commitment and the side, the state that the side sealed an order, never which."""
        async with self._lock(channel_id):
            stored = await self._recorded_or_active(channel_id, interaction_id)
            if isinstance(stored, Acted):  # a re-delivery: the sealer's copy comes from the store again
                return await self._sealed_again(stored)
            self._check_room(stored)
            game = stored.game
            plain = _plain_order(order(game) if callable(order) else order)
            check_permission(game, actor, plain)
            sides = list(acting_sides(game, plain))
            if len(sides) != 1:
                raise InvalidOrder("a sealed order is given for the stands of one side", field="units")
            check_sealable(game, plain)
            after, notes = note_sealed(game, stored.last_seq + 1, sides[0])
            return await self._save_sealed(stored, actor, sealed_text(plain), sides[0], {"applies": plain["action"]},
                                           command="/seal", state=await self._dice_state(stored),
                                           interaction_id=interaction_id, after=after, notes=notes)

    async def revealed_hidden(self, channel_id: int) -> tuple[Game, dict[int, str], list[int]]:
        """The channel's game with its scenario's hidden parts: the revealed ones' texts by side, and
        the sides whose part is still sealed (``/scenario export`` writes the first, never the second)."""
        stored = await self._active(channel_id)
        sealed: dict[int, int] = {}  # seal entry -> side
        revealed: dict[int, str] = {}
        async for entry in self._store.iter_entries(stored.id):
            action = entry.order.get("action")
            if action == SEAL and entry.command == HIDDEN_SEAL and isinstance(entry.order.get("side"), int):
                sealed[entry.seq] = entry.order["side"]
            elif action == REVEAL and entry.order.get("sealed") in sealed:
                revealed[sealed.pop(entry.order["sealed"])] = str(entry.order.get("text", ""))
        return stored.game, revealed, sorted(set(sealed.values()) - set(revealed))

    async def secret_roll(self, channel_id: int, actor: Actor, kind: str, purpose: str, *,
                          interaction_id: int | None = None) -> Sealed:
        """Roll committed dice that only the roller sees now: the log gets the roll's kind, purpose and
        commitment (a sealed text holding the dice); /reveal shows them, and the audit re-derives them."""
        if kind not in SECRET_KINDS:
            raise InvalidOrder(f"a secret roll is one of {', '.join(SECRET_KINDS)}", field="kind")
        if not 1 <= len(purpose) <= 100:
            raise InvalidOrder("say in 1 to 100 characters what the roll is for", field="purpose")
        async with self._lock(channel_id):
            stored = await self._recorded_or_active(channel_id, interaction_id)
            if isinstance(stored, Acted):  # a re-delivery: the sealer's copy comes from the store again
                return await self._sealed_again(stored)
            self._check_room(stored)
            game = stored.game
            side = self._acting_side(game, actor, None, "roll in secret")
            state = await self._dice_state(stored)
            if state is None or state.commitment is None:
                raise NotAllowed("this game was started before committed dice: it has no secret rolls")
            source = CommittedDice(await self._seed(state.commitment), game_id=stored.id, seq=stored.last_seq + 1,
                                   interaction_id=interaction_id, contributions=state.contributions)
            roll = getattr(Roller(source), SECRET_KINDS[kind])(purpose)
            roll_order = {"kind": kind, "purpose": purpose, "sides": list(source.sides), "turn_end": True}
            return await self._save_sealed(stored, actor, roll_text(kind, purpose, list(roll.dice)), side,
                                           {"roll": roll_order}, command="/roll secret", state=state,
                                           interaction_id=interaction_id)

    async def _sealed_target(self, stored: StoredGame, sealed_seq: int) -> tuple[LogEntry, int | None]:
        """The seal entry ``sealed_seq`` of the game and the entry that opened it (a /reveal, or the end
        of its game turn for a secret roll), None while it is still sealed."""
        target = await self.entry(stored.id, sealed_seq) if 1 <= sealed_seq <= stored.last_seq else None
        if target is None or target.order.get("action") != SEAL:
            raise NotAllowed(f"entry #{sealed_seq} is not a sealed order (see /log show: a seal reads "
                             "\"sealed an order\")")
        opened = None
        async for later in self._store.iter_entries(stored.id):
            revealed = later.order.get("action") == REVEAL and later.order.get("sealed") == sealed_seq
            at_turn_end = any(item.get("sealed") == sealed_seq for item in opened_of(later.dice_proof))
            if later.seq > sealed_seq and (revealed or at_turn_end):
                opened = later.seq
        return target, opened

    async def peek(self, channel_id: int, actor: Actor, sealed_seq: int, *,
                   interaction_id: int | None = None) -> Sealed:
        """A private look at a sealed order or a secret roll before its reveal, by a game master who
        plays no side (the umpire sees what the players hide from each other; the game option
        gm_peeks=no forbids it) or by a player of the side that sealed it. The look is logged, so
        the channel sees who looked at which (never the text); the text goes to the looker alone."""
        async with self._lock(channel_id):
            stored = await self._recorded_or_active(channel_id, interaction_id)
            if isinstance(stored, Acted):  # a re-delivery: the text comes from the store again
                seal = await self.entry(stored.entry.game_id, stored.entry.order.get("sealed", 0))
                held = await self._store.held_secret(seal.order.get("commitment", ""))
                return Sealed(stored, json.loads(held)["text"] if held else "", "")
            self._check_room(stored)
            game = stored.game
            target, opened = await self._sealed_target(stored, sealed_seq)
            sealed_by = target.order.get("side")
            check_hidden_access(game, actor, target, "look at")
            if opened is not None:
                raise NotAllowed(f"sealed #{sealed_seq} was revealed at entry #{opened}: /log show {opened} shows it "
                                 "to everyone")
            held = await self._store.held_secret(target.order["commitment"])
            if held is None:
                raise NotAllowed(f"the text of sealed order #{sealed_seq} is not held by the bot")
            mine = [i for i, side in enumerate(game.sides) if actor.user_id in side.players]
            order = {"action": PEEK, "sealed": sealed_seq, "side": sealed_by,
                     "looker": sealed_by if sealed_by in mine else None}
            outcome = peek_outcome(game, order)
            entry = self._seal(stored.id, stored.last_seq, stored.head_hash, actor=actor, command="/peek",
                               order=order, outcome=outcome, game=game, manual=False, interaction_id=interaction_id,
                               dice_proof=await self._proof(await self._dice_state(stored), None, reveal=False))
            recorded = await self._save(stored, game, entry)
            return Sealed(recorded or Acted(outcome, game, entry), json.loads(held)["text"], "")

    async def reveal(self, channel_id: int, actor: Actor, sealed_seq: int, *,
                     interaction_id: int | None = None) -> Acted:
        """Open a sealed order: its text and nonce go in the log, checked against its commitment. The
        players of the side that sealed it, its sealer, or a game master who plays no side may."""
        async with self._lock(channel_id):
            stored = await self._recorded_or_active(channel_id, interaction_id)
            if isinstance(stored, Acted):
                return stored
            self._check_room(stored)
            game = stored.game
            target, opened_at = await self._sealed_target(stored, sealed_seq)
            sealed_by = target.order.get("side")
            check_hidden_access(game, actor, target, "reveal")
            held = await self._store.held_secret(target.order["commitment"])
            if held is None:
                raise NotAllowed(f"the text of sealed order #{sealed_seq} is not held by the bot: it cannot be "
                                 "revealed (its sealer has the copy with its nonce)")
            opened = json.loads(held)
            order = {"action": REVEAL, "sealed": sealed_seq, "text": opened["text"], "nonce": opened["nonce"],
                     "side": sealed_by, "roll": target.order.get("roll")}
            seals = {sealed_seq: {"commitment": target.order["commitment"], "opened": opened_at, "side": sealed_by,
                                  "roll": target.order.get("roll")}}
            if (problem := check_reveal(stored.last_seq + 1, order, seals)) is not None:
                raise NotAllowed(problem.replace(f"entry #{stored.last_seq + 1} reveals", "this would reveal"))
            applied = reveal_sealed(game, sealed_seq, opened["text"])  # an order it applies (refused: not its time)
            after = applied.game if applied is not None else game
            outcome = reveal_outcome(game, order, applied.outcome if applied is not None else None)
            proof = await self._proof(await self._dice_state(stored), None, reveal=False)
            entry = self._seal(stored.id, stored.last_seq, stored.head_hash, actor=actor, command="/reveal",
                               order=order, outcome=outcome, game=after, manual=False,
                               interaction_id=interaction_id, dice_proof=proof)
            recorded = await self._save(stored, after, entry)
            return recorded or Acted(outcome, after, entry)

    # --- the log ---

    async def since_last_acted(self, entry: LogEntry, game: Game, side: int, *,
                               most: int = DIGEST_MOST) -> list[LogEntry]:
        """The entries a side has not seen itself act among, before ``entry`` (the hand-off, shown
        just above): those after its players' last entry (at most ``most``, the newest), for the
        digest sent when the game passes to it."""
        players = set(game.sides[side].players) if 0 <= side < len(game.sides) else set()
        recent = await self._store.entries(entry.game_id, after_seq=max(0, entry.seq - DIGEST_LOOK_BACK),
                                           limit=DIGEST_LOOK_BACK)
        since: list[LogEntry] = []
        for logged in reversed(recent):
            if logged.seq >= entry.seq:
                continue
            if logged.actor in players:
                break
            since.append(logged)
        return list(reversed(since))[-most:]

    async def player_games(self, user_id: int, *, mine: bool = False) -> list[SeatedGame]:
        """Every active game ``user_id`` plays in, on every server (the store's seats index, never a
        scan), oldest newest entry first; ``mine``: only those waiting for them (the side to act, or
        the side answering a reaction window). Each with its deadline, and whether the side it waits
        for is away (one read of the away table for every game's waited players)."""
        held_games = await self._store.player_games(user_id)
        waited = {held.game.id: deadlines.waited_side(held.game.game) for held in held_games}
        players = {p for held in held_games for p in _players(held.game.game, waited[held.game.id])}
        away = await self._store.aways(players)
        now = self.clock()
        found = []
        for held in held_games:
            game = held.game.game
            side = waited[held.game.id]
            theirs = 0 <= side < len(game.sides) and user_id in game.sides[side].players
            if theirs or not mine:
                start = deadlines.clock_start(game, datetime.fromisoformat(held.last_time), away_spans(away), now)
                until = None
                if start is None:  # the whole side is away: back when the first of them is
                    until = min(away[p].until for p in _players(game, side))
                found.append(SeatedGame(held.game.id, held.game.channel_id, held.game.guild_id, game,
                                        held.last_time, side, theirs, away_until=until,
                                        deadline=None if start is None else deadlines.due(game, start)))
        return found

    async def deadline(self, stored: StoredGame) -> tuple[datetime | None, bool]:
        """When the step of the side the game waits for ends by its deadline (game option deadline_hours),
        counted from the newest entry or the return of its first player from an away; and whether every
        player of that side is away now (no deadline meanwhile). (None, False) when no deadline runs."""
        game = stored.game
        if deadlines.limit(game) is None:
            return None, False
        last = await self.entry(stored.id, stored.last_seq)
        away = await self._store.aways(_players(game, deadlines.waited_side(game)))
        start = deadlines.clock_start(game, datetime.fromisoformat(last.time), away_spans(away), self.clock())
        return (None, True) if start is None else (deadlines.due(game, start), False)

    # --- players away (/away) ---

    async def set_away(self, user_id: int, until: datetime, reason: str = "") -> Away:
        """The player is away until ``until`` (in every game: bot/pacing.py stops the clock of a side
        whose every player is away); refused in the past or more than AWAY_MOST_DAYS ahead."""
        now = self.clock()
        if until <= now:
            raise InvalidOrder(f"{until:%Y-%m-%d} is in the past: give a date to come (e.g. "
                               f"{now + timedelta(days=7):%Y-%m-%d}) or a number of days", field="until")
        if until - now > timedelta(days=AWAY_MOST_DAYS, hours=24):
            raise InvalidOrder(f"an away lasts {AWAY_MOST_DAYS} days at most (until "
                               f"{now + timedelta(days=AWAY_MOST_DAYS):%Y-%m-%d}): the game master can pause a "
                               "game, or seat a substitute (/game replace)", field="until")
        if len(reason) > AWAY_REASON_MAX:
            raise InvalidOrder(f"a reason is {AWAY_REASON_MAX} characters at most", field="reason")
        away = Away(user_id, now.isoformat(timespec="milliseconds"), until.isoformat(timespec="milliseconds"),
                    reason)
        await self._store.set_away(away)
        return away

    async def end_away(self, user_id: int) -> Away:
        """The player is back before the away's end: it ends now (the clocks count from now)."""
        now = self.clock().isoformat(timespec="milliseconds")
        away = (await self._store.aways([user_id])).get(user_id)
        if away is None or not away.at(now):
            raise NotAllowed("you are not away: /away until sets an away")
        ended = Away(user_id, away.since, now, away.reason)
        await self._store.set_away(ended)
        return ended

    async def away_now(self, user_ids: Iterable[int]) -> dict[int, Away]:
        """Those of these users away now, with their away."""
        now = self.clock().isoformat(timespec="milliseconds")
        return {user: away for user, away in (await self._store.aways(user_ids)).items() if away.at(now)}

    async def set_notify(self, user_id: int, dm: bool) -> None:
        """The user's choice of notifications by DM (/notify dm:), on every server."""
        await self._store.set_notify(user_id, dm)

    async def dm_users(self, user_ids: Iterable[int]) -> set[int]:
        """Those of these users who chose notifications by DM."""
        return await self._store.dm_users(user_ids)

    async def aways(self, user_ids: Iterable[int]) -> dict[int, Away]:
        """The latest away of each of these users (ended ones too)."""
        return await self._store.aways(user_ids)

    async def log(self, channel_id: int, page: int | None = None, per_page: int = 10) -> LogPage:
        """One page of the channel's game log (the active game, else the last ended one).
        Pages count from the start; ``page=None`` is the last page, the newest entries."""
        if not 1 <= per_page <= MAX_PER_PAGE:
            raise InvalidOrder(f"a log page shows 1 to {MAX_PER_PAGE} entries", field="per_page")
        stored = await self._latest(channel_id)
        pages = max(1, math.ceil(stored.last_seq / per_page))
        page = pages if page is None else page
        if not 1 <= page <= pages:
            raise InvalidOrder(f"the log has {pages} page{'s' if pages != 1 else ''}; there is no page {page}",
                               field="page")
        entries = await self._store.entries(stored.id, after_seq=(page - 1) * per_page, limit=per_page)
        # from the entry before the page: an undo just before its first entry marks that one given again
        undone = await self._store.undone(stored.id, after_seq=max(0, (page - 1) * per_page - 1))
        regiven = await self._regiven(stored.id, entries, undone)
        return LogPage(game_id=stored.id, status=stored.status, entries=entries, page=page, pages=pages,
                       total=stored.last_seq, undone=undone, regiven=regiven)

    async def _regiven(self, game_id: int, entries: list[LogEntry], undone: dict[int, int]) -> dict[int, int]:
        """The entries among ``entries`` that give an undone order again (``given_again``), each with
        the seq of the entry it gives again (read from the log when not among them)."""
        known = {e.seq: (e.order.get("action"), e.outcome.get("actor_side")) for e in entries}
        for target, undo in undone.items():
            if undo + 1 in known and target not in known:
                found = await self._store.entries(game_id, after_seq=target - 1, limit=1)
                if found:
                    known[target] = (found[0].order.get("action"), found[0].outcome.get("actor_side"))
        regiven = {}
        for entry in entries:
            action, side = known[entry.seq]
            target = given_again(undone, entry.seq, action, side, known.get)
            if target is not None:
                regiven[entry.seq] = target
        return regiven

    async def battlefield(self, channel_id: int) -> Battlefield:
        """The channel's game (the active one, else the last ended) and its newest MAP_LOOK_BACK
        entries, for the map (bot/maps.py; the latest fire is searched among these)."""
        stored = await self._latest(channel_id)
        after = max(0, stored.last_seq - MAP_LOOK_BACK)
        entries = await self._store.entries(stored.id, after_seq=after, limit=MAP_LOOK_BACK)
        undone = await self._store.undone(stored.id, after_seq=after)
        return Battlefield(stored.id, stored.game, stored.head_hash,
                           [{"seq": e.seq, "order": e.order, "outcome": {"actor_side": e.outcome.get("actor_side")}}
                            for e in entries], frozenset(undone))

    async def export(self, channel_id: int) -> dict[str, Any]:
        """The whole log as JSON (``python -m bot rules replay`` reads it)."""
        stored, entries = await self.log_snapshot(channel_id)
        return export_record(stored, entries)

    async def log_snapshot(self, channel_id: int, each: Callable[[int, dict], None] | None = None, *,
                           on_long: OnLong = None, steps_per_entry: float = 0,
                           ) -> tuple[StoredGame, Pickled[LogEntry]]:
        """The channel's game (the active one, else the last ended) and its entries up to the newest
        seen at the start, read in batches without the channel's lock: what long work (exports,
        statistics) computes from, in a worker (``run_long``). ``each(actor, order)`` sees every
        entry as it is read (a quick look on the loop: the people an export names); ``on_long`` is awaited first
        when the work, ``steps_per_entry`` per entry, will be long."""
        stored = await self._latest(channel_id)
        await self._before_long(stored.last_seq * steps_per_entry, on_long)
        return stored, await self._snapshot(stored.id, stored.last_seq, each)

    async def run_long(self, fn: Callable[..., Any], *args: Any, cost: float, what: str, instead: str,
                       on_long: OnLong = None) -> Any:
        """``fn(*args)`` within the time budget, in a worker process when ``cost`` is more than a
        moment's work (bot/work.py); the cogs' long work (exports, statistics) goes through here."""
        return await self.worker.run(fn, *args, cost=cost, what=what, instead=instead, on_long=on_long)

    async def verify(self, channel_id: int, on_long: OnLong = None) -> VerifyReport:
        """Recompute the hash chain and replay the game from entry 1; name the first entry that
        does not match (changed, or missing). It reads the log up to the newest entry seen at the
        start and replays it outside the channel's lock (in a worker process when long): the
        channel's players go on meanwhile."""
        stored, entries = await self.log_snapshot(channel_id)
        return await self.worker.run(
            verify_log, entries, stored, cost=replay_cost(len(entries), stored.game), on_long=on_long,
            what=f"verifying this game's {len(entries):,} log entries with {len(stored.game.units)} units",
            instead="export the log (/log export format:JSON) and check it on your own computer with "
                    "python -m bot rules replay")

    # --- undo by consent ---

    def _undo_expiry(self, game: Game) -> timedelta:
        minutes = game.options.get("undo_minutes", self.undo_minutes)
        if not isinstance(minutes, (int, float)) or isinstance(minutes, bool) or not 1 <= minutes <= 7 * 24 * 60:
            minutes = self.undo_minutes  # a bad option never blocks an undo: the default applies
        return timedelta(minutes=minutes)

    async def propose_undo(self, channel_id: int, actor: Actor, *, interaction_id: int | None = None,
                           on_long: OnLong = None) -> UndoProposal:
        """Propose to revert the newest entry that is not undone. The state before it is rebuilt by
        replaying the log (which must verify up to there) and kept with the proposal, so the
        accepted undo restores exactly that state and never rolls a die. The replay runs outside
        the channel's lock (in a worker process when long); the proposal is stored only if the
        game did not move on meanwhile."""
        async with self._lock(channel_id):
            if interaction_id is not None and (known := await self._store.undo_by_interaction(interaction_id)):
                return await self._proposal(known, replayed=True)
            stored = await self._undoable(channel_id, actor)
            live = await self._newest_live(stored, 2)
        if len(live) < 2:
            raise NotAllowed("there is nothing to undo: the game's creation cannot be undone")
        before, target = live
        await self._check_undoable(stored, target)
        state_before = await self._replayed(
            state_before_undo, stored.id, before, game=stored.game, on_long=on_long,
            what=lambda count: f"preparing this undo (a replay of the {count:,} entries before entry #{target})",
            instead="the game master can correct the game with /unit edit and /unit move instead")
        async with self._lock(channel_id):
            now_stored = await self._undoable(channel_id, actor)
            if (now_stored.id, now_stored.last_seq, now_stored.head_hash) != (stored.id, stored.last_seq,
                                                                             stored.head_hash):
                raise NotAllowed("the game moved on while this undo was being prepared; nothing was proposed: "
                                 "propose it again if it is still wanted")
            now = self.clock()
            request = UndoRequest(
                id=0, game_id=stored.id, target_seq=target, head_seq=stored.last_seq, head_hash=stored.head_hash,
                proposer=actor.user_id, proposed_at=now.isoformat(timespec="milliseconds"),
                expires_at=(now + self._undo_expiry(stored.game)).isoformat(timespec="milliseconds"),
                state_before=state_before, interaction_id=interaction_id)
            try:
                request = await self._store.create_undo(request)
            except DuplicateInteraction:
                request = await self._store.undo_by_interaction(interaction_id)  # type: ignore[arg-type]
                return await self._proposal(request, replayed=True)  # type: ignore[arg-type]
            return await self._proposal(request, stored=now_stored)

    async def _check_undoable(self, stored: StoredGame, target: int) -> None:
        """A game's reopening is not undone. Under the game option ``undo_rolls=never`` an order that
        rolled dice is never undone: the game master corrects what it did, with /unit edit naming the
        entry (logged as its correction)."""
        (entry,) = await self._store.entries(stored.id, after_seq=target - 1, limit=1)
        if entry.order.get("action") == REOPEN_GAME:
            raise NotAllowed(f"entry #{target} reopened the game: a reopening is not undone (the game master ends "
                             "the game again with /game end), nor what came before it")
        if stored.game.options.get("undo_rolls", general("undo_rolls").default) != "never":
            return
        if entry.outcome_model().rolls:
            raise NotAllowed(f"entry #{target} ({entry.command}) rolled dice, and this game's option undo_rolls=never "
                             f"keeps every order that rolled: its result stands. The game master corrects what it did "
                             f"with /unit edit corrects:{target} (logged as a correction of #{target})")

    async def _newest_live(self, stored: StoredGame, count: int) -> list[int]:
        """The ``count`` newest entries not undone (``newest_live``), reading only the undo entries
        of the newest part of the log: an entry can be undone only by a later entry, so the undos
        after seq ``s`` tell which entries after ``s`` are live. The part read grows (x4) until it
        holds ``count`` live entries, or is the whole log. (Reading every undo of the log was a scan
        of the whole log: a cost that grew with it.)"""
        window = UNDO_LOOK_BACK
        while True:
            after = max(0, stored.last_seq - window)
            live = newest_live(stored.last_seq, await self._store.undone(stored.id, after_seq=after), count)
            if after == 0 or (len(live) == count and live[0] > after):
                return live
            window *= 4

    async def _undoable(self, channel_id: int, actor: Actor) -> StoredGame:
        """The channel's active game when ``actor`` may propose an undo in it now (under the lock)."""
        stored = await self._active(channel_id)
        game = stored.game
        if not is_game_master(game, actor) and not any(actor.user_id in side.players for side in game.sides):
            raise NotAllowed("only the players of this game and its game master may propose an undo")
        self._check_room(stored)
        await self._close_stale_proposal(stored)
        return stored

    async def undo_proposal(self, request_id: int) -> UndoProposal:
        request = await self._store.undo_request(request_id)
        if request is None:
            raise NotAllowed("this undo proposal is not known here")
        return await self._proposal(request)

    async def note_undo_message(self, request_id: int, channel_id: int, message_id: int) -> None:
        await self._store.set_undo_message(request_id, channel_id, message_id)

    async def expire_undos(self) -> list[tuple[UndoProposal, UndoAnswer]]:
        """Close the proposals whose time ran out unanswered; each with its answer, so the
        caller can take the buttons off their messages."""
        now = self.clock().isoformat(timespec="milliseconds")
        expired = []
        for request in await self._store.overdue_undos(now):
            if await self._store.settle_undo(request.id, "expired", None, now):
                closed = await self._store.undo_request(request.id)
                assert closed is not None
                expired.append((await self._proposal(closed), UndoAnswer("expired", closed)))
        return expired

    async def _proposal(self, request: UndoRequest, *, replayed: bool = False,
                        stored: StoredGame | None = None) -> UndoProposal:
        """The proposal with its target entry and game (``stored``, when just read: not read again)."""
        stored = stored or await self._store.load_game(request.game_id)
        target = (await self._store.entries(request.game_id, after_seq=request.target_seq - 1, limit=1))[0]
        assert stored is not None
        return UndoProposal(request, target, stored.game, replayed=replayed)

    async def _close_stale_proposal(self, stored: StoredGame) -> None:
        """A proposal still marked pending blocks a new one, unless it expired or the game moved on."""
        pending = await self._store.pending_undo(stored.id)
        if pending is None:
            return
        status = self._lapse(pending, stored)
        if status is None:
            raise NotAllowed(f"an undo of entry #{pending.target_seq} is already waiting for an answer "
                             f"(until <t:{int(datetime.fromisoformat(pending.expires_at).timestamp())}:f>)")
        await self._store.settle_undo(pending.id, status, None, self.clock().isoformat(timespec="milliseconds"))

    def _lapse(self, request: UndoRequest, stored: StoredGame) -> str | None:
        """"expired" or "lapsed" (the game moved on, or ended) when the proposal can no longer be accepted."""
        if self.clock() >= datetime.fromisoformat(request.expires_at):
            return "expired"
        if stored.status != "active" or stored.last_seq != request.head_seq or stored.head_hash != request.head_hash:
            return "lapsed"
        return None

    async def answer_undo(self, request_id: int, actor: Actor, *, accept: bool,
                          interaction_id: int | None = None) -> UndoAnswer:
        """Accept or refuse a proposal. The proposer may withdraw it but not accept it (unless they
        are the game master); accepting appends the reverting entry with the state before the
        undone one, in one transaction with closing the proposal."""
        request = await self._store.undo_request(request_id)
        if request is None:
            raise NotAllowed("this undo proposal is not known here")
        stored = await self._store.load_game(request.game_id)
        assert stored is not None  # requests reference their game (foreign key)
        async with self._lock(stored.channel_id):
            if (done := await self.recorded(interaction_id)) is not None:
                return UndoAnswer("accepted", request, done)
            request = await self._store.undo_request(request_id)
            stored = await self._store.load_game(request.game_id)  # type: ignore[union-attr]
            assert request is not None and stored is not None
            if request.status != "pending":
                raise NotAllowed(f"this undo proposal is closed: it was {request.status}")
            now = self.clock().isoformat(timespec="milliseconds")
            if (status := self._lapse(request, stored)) is not None:
                await self._store.settle_undo(request.id, status, None, now)  # type: ignore[arg-type]
                return UndoAnswer(status, await self._store.undo_request(request.id))  # type: ignore[arg-type]
            self._check_answer(stored.game, request, actor, accept=accept)
            if not accept:
                status = "withdrawn" if actor.user_id == request.proposer else "refused"
                await self._store.settle_undo(request.id, status, actor.user_id, now)  # type: ignore[arg-type]
                return UndoAnswer(status, await self._store.undo_request(request.id))  # type: ignore[arg-type]
            return await self._accept_undo(stored, request, actor, interaction_id)

    @staticmethod
    def _check_answer(game: Game, request: UndoRequest, actor: Actor, *, accept: bool) -> None:
        if is_game_master(game, actor):
            return
        proposer_sides = {i for i, side in enumerate(game.sides) if request.proposer in side.players}
        # consent counts from a player seated before the action undone (the game then) and still now:
        # a stranger who sits down after it happened cannot wave it away
        before = Game.model_validate_json(request.state_before)
        actor_sides = {i for i, side in enumerate(game.sides)
                       if actor.user_id in side.players and i < len(before.sides)
                       and actor.user_id in before.sides[i].players}
        if actor.user_id == request.proposer:
            if accept:
                raise NotAllowed("you proposed this undo: a player of the other side (or the game master) "
                                 "must accept it; you may withdraw it with Refuse")
            return
        if not actor_sides - proposer_sides:
            others = [game.side_name(i) for i in range(len(game.sides)) if i not in proposer_sides]
            raise NotAllowed(f"only a player of {' or '.join(others) or 'the other side'} seated before the action "
                             "(or the game master) may answer this undo")

    async def _accept_undo(self, stored: StoredGame, request: UndoRequest, actor: Actor,
                           interaction_id: int | None) -> UndoAnswer:
        restored = Game.model_validate_json(request.state_before)
        # the log keeps orders as canonical JSON, whose keys are sorted: the order of the units and
        # Locations (part of the game: a stack is listed in it) and of the options goes with the
        # state, for the replay
        order = {"action": UNDO, "undoes": request.target_seq, "proposed_by": request.proposer,
                 "accepted_by": actor.user_id, "state": restored.model_dump(mode="json"),
                 "unit_order": list(restored.units), "location_order": list(restored.locations),
                 OPTION_ORDER: list(restored.options)}
        outcome = undo_outcome(stored.game, restored, order)
        # an undo draws nothing and reveals nothing: the seed of the turn stays committed (never rerolled)
        proof = await self._proof(await self._dice_state(stored), None, reveal=False)
        entry = self._seal(stored.id, stored.last_seq, stored.head_hash, actor=Actor(request.proposer),
                           command="/undo", order=order, outcome=outcome, game=restored, manual=False,
                           interaction_id=interaction_id, dice_proof=proof)
        try:
            await self._store.apply_undo(stored, restored, entry, request.id, actor.user_id)
        except DuplicateInteraction:
            return UndoAnswer("accepted", request, await self.recorded(interaction_id))
        except StaleGame:
            raise NotAllowed("the game changed while this undo was being applied; nothing was saved") from None
        self._saved(stored.id, entry)
        undone = (await self._store.entries(stored.id, after_seq=request.target_seq - 1, limit=1))[0]
        self._undid[stored.id] = (entry.seq, request.target_seq, undone.order.get("action"),
                                  undone.outcome.get("actor_side"))
        accepted = await self._store.undo_request(request.id)
        return UndoAnswer("accepted", accepted or request,  # type: ignore[arg-type]
                          Acted(outcome, restored, entry, hand_off=_hand_off(stored.game, restored)))


# --- long work: plain functions of plain data, run in a worker process when long (bot/work.py) ---

PREVIEW_STEPS = 2  # work steps per outcome-and-unit of a preview's estimated size (bot.core.odds.size)


def replay_cost(entries: int, game: Game, *, hashed: bool = False) -> float:
    """Work steps of replaying ``entries`` entries of a game about this size (bot/work.py); ``hashed``:
    and of hashing its state once (a checkpoint's, ``ReplayStart``)."""
    return entries * (len(game.units) + REPLAY_STEPS) + (HASH_STEPS_PER_UNIT * len(game.units) if hashed else 0)


@dataclass(frozen=True)
class ReplayStart:
    """Where a replay up to entry ``until`` begins, as a job is given it: ``checkpoint`` (unchecked:
    its state is hashed in the job) or, None, entry 1. Feed ``verifier()`` the entries after ``after``."""

    checkpoint: Checkpoint | None
    until: int

    @property
    def after(self) -> int:
        return 0 if self.checkpoint is None else self.checkpoint.seq

    def verifier(self) -> ChainVerifier | None:
        """A verifier (``hash_once``) resumed from the checkpoint, or from entry 1 without one; None
        when the checkpoint does not check out against its entry (the replay must start at entry 1)."""
        verifier = ChainVerifier.resume(self.checkpoint, until=self.until, hash_once=True)
        return verifier if verifier.resumed_at == self.after else None


def export_record(stored: StoredGame, entries: Iterable[LogEntry]) -> dict[str, Any]:
    """The JSON export of a game's log (``python -m bot rules replay`` reads it)."""
    return {"game_id": stored.id, "channel_id": stored.channel_id, "ruleset": stored.ruleset,
            "status": stored.status, "head_hash": stored.head_hash, "entries": [e.export() for e in entries]}


def verify_log(entries: Iterable[LogEntry], stored: StoredGame) -> VerifyReport:
    """The chain and the replay of ``entries`` (a game's whole log as read), then the saved state."""
    verifier = ChainVerifier()
    for entry in entries:
        problem = verifier.check(entry)
        if problem is not None:
            return VerifyReport(False, verifier.checked, problem.seq, problem.reason)
    problem = verifier.finish(stored)
    if problem is not None:
        return VerifyReport(False, verifier.checked, problem.seq, problem.reason)
    # the summary says how many entries were logged under earlier rules versions
    return VerifyReport(True, verifier.checked, None, verifier.summary())


def state_before_undo(start: ReplayStart, entries: Iterable[LogEntry]) -> str | None:
    """The game after the last of ``entries`` (the entry below the one undone), as JSON, once the
    log verifies up to there from ``start``; refused when it does not; None when ``start``'s
    checkpoint does not check out."""
    verifier = start.verifier()
    if verifier is None:
        return None
    for entry in entries:
        if (problem := verifier.check(entry)) is not None:
            break
    else:
        problem = verifier.settled()  # the state at the end, hashed once
    if problem is not None:
        raise NotAllowed(f"the log does not check out at entry #{problem.seq}, so no undo can be "
                         f"trusted: {problem.reason} (see /log verify)")
    assert verifier.game is not None
    return verifier.game.model_dump_json()


def preview_with_plan(game: Game, order: dict[str, Any]) -> tuple[OddsReport, DicePlan]:
    """The odds of ``order`` and the dice it would roll (the plan is a resolution too: 20 ms for a
    300-unit game, measured, so in the job with the odds rather than on the loop after them)."""
    return odds_preview(game, order), dice_plan(game, order)


def odds_before(start: ReplayStart, earlier: Iterable[LogEntry], entry: LogEntry) -> Odds | None:
    """The odds ``entry``'s order had, in the game replayed from ``start`` (a checkpoint, or entry
    1) through ``earlier``, the entries after it up to ``entry``; None when ``start``'s checkpoint
    does not check out."""
    seq = entry.seq
    verifier = start.verifier()
    if verifier is None:
        return None
    replayer, last = verifier.replayer, verifier.last_state_hash
    try:
        for logged in earlier:
            # the logged state hashes for the undos' checks; the state at the end is hashed once
            replayer.apply(logged.seq, logged.order, logged.dice, logged.manual, logged.state_hash)
            last = logged.state_hash
    except (ReplayRefused, RulesError) as exc:
        raise NotAllowed(f"the log does not replay before entry #{seq} ({exc}): see /log verify") from None
    if replayer.game is None or last is None or replayer.last_hash != last:
        raise NotAllowed(f"the state before entry #{seq} does not check out against the log: see /log verify")
    return Odds(odds_preview(replayer.game, entry.order), replayer.game, entry,
                dice_plan(replayer.game, entry.order))
