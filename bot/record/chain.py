"""The tamper-evident log: canonical JSON, state hashes and hash-chained entries.

Pure functions and one frozen model, shared by every store (SQLite today, PostgreSQL later)
and by ``Referee.verify``. Each entry carries the hash of the one before it, so editing or
deleting any row breaks the chain from that row on; the state hash of each entry lets a replay
of the log be compared with what was recorded, entry by entry.
"""

from __future__ import annotations

import hashlib
import json
import re
from operator import itemgetter
from typing import Any, NamedTuple

import orjson
from pydantic import BaseModel, ConfigDict, Field

from bot.core.game import Game
from bot.core.outcome import Outcome
from bot.core.version import LEGACY_RULES_VERSION, RULES_VERSION

# prev_hash of a game's first entry: there is nothing before it to link to
GENESIS_HASH = "0" * 64


# what json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False) builds on
# every call, built once (issue 5: three encodings a command were 10% of the bot's time)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
# the same in the mappings' own order (a saved state, bot/store)
_ORDERED = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
# the same as _CANONICAL, refusing what model_dump(mode="json") would change (NaN and infinities become null)
_CANONICAL_STRICT = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# orjson writes what the standard library's encoders above write, bytes for bytes, about 5x faster
# (issue 14: 7 encodings a command were a tenth of the event loop's time), except for values it
# spells otherwise, which ``_fast`` hands back to the standard library (tests/record/
# test_fast_json.py feeds each to both): a float below 1e-4 in magnitude ("0.00001" and "1e-7"
# against "1e-05" and "1e-07": found in its output by ``_UNLIKE``), NaN and the infinities
# (null against NaN and Infinity: ``_finite``), and what it refuses (a key that is not a str,
# an int past 64 bits, a str with a lone surrogate, a subclass of str, int, float, dict or list,
# a dataclass, a datetime: json writes some of these and refuses the others, so it decides).
_FAST_SORTED = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATETIME
                | orjson.OPT_PASSTHROUGH_DATACLASS)
_FAST_ORDERED = _FAST_SORTED & ~orjson.OPT_SORT_KEYS
# a number (after "[", ":" or ",": a str's text starts with a quote; or the whole text) written as
# "0.0000..." or with a negative exponent: the floats under 1e-4 (a str holding such text only
# costs the slow path). Looked for only when the bytes hold "e-" or "0.0000" (a regular
# expression over the whole text costs more than orjson saves: 45 us against 8 for a 6 KB state)
_UNLIKE = re.compile(rb"[\[:,]-?(?:0\.0000|[0-9.]+e-)")
_UNLIKE_FIRST = re.compile(rb"-?(?:0\.0000|[0-9.]+e-)")


def _finite(value: Any) -> bool:
    """No NaN nor infinity among the floats of ``value`` (nested dicts, lists and tuples)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            if item - item != 0.0:  # NaN and the infinities
                return False
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
    return True


def _fast(value: Any, option: int, *, finite: bool = False) -> str | None:
    """``value`` encoded by orjson when that is what the standard library writes, else None.
    ``finite``: the caller knows there is no NaN nor infinity in it: the JSON dump of a model whose
    float fields refuse them (``Outcome``: a Step's value and total, ``allow_inf_nan=False``), or
    of one without float fields (``Game``): pydantic writes a NaN held in an ``Any`` field as None."""
    try:
        out = orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        return None
    if (b"e-" in out or b"0.0000" in out) and (_UNLIKE.search(out) or _UNLIKE_FIRST.match(out)):
        return None
    if not finite and b"null" in out and not _finite(value):
        return None  # NaN and the infinities come out null
    return out.decode("utf-8")


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces, so equal content hashes equally."""
    text = _fast(value, _FAST_SORTED)
    return _CANONICAL.encode(value) if text is None else text


def _has_float(schema: Any) -> bool:
    """Whether a pydantic core schema holds a float (or decimal) anywhere."""
    if isinstance(schema, dict):
        return schema.get("type") in ("float", "decimal") or any(_has_float(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_float(v) for v in schema)
    return False


# a Game's JSON dump holds no NaN nor infinity when its schema holds no float: its Any-typed
# fields hold them as None (pydantic, mode="json"); else every dump is checked
_GAME_FINITE = not _has_float(Game.__pydantic_core_schema__)


def game_json(data: dict[str, Any], *, ordered: bool = False) -> str:
    """``canonical_json`` of a Game's ``model_dump(mode="json")`` (``ordered``: in the game's own
    order, not sorted), the same bytes as the standard library's encoders."""
    text = _fast(data, _FAST_ORDERED if ordered else _FAST_SORTED, finite=_GAME_FINITE)
    if text is not None:
        return text
    return (_ORDERED if ordered else _CANONICAL).encode(data)


# The canonical JSON of the outcomes of the entries ``seal`` built last, by the identity of the
# entry's outcome dict (kept alive here, so its id cannot be reused): the store saves the very
# text the hash covered instead of encoding the outcome again. Bounded: a command's entry is
# saved right after it is sealed.
_SEALED_OUTCOMES: dict[int, tuple[dict[str, Any], str]] = {}
_SEALED_OUTCOMES_KEPT = 128  # more than the commands in flight at once (50 channels in the bench)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SavedState(NamedTuple):
    """A game's state as hashed and as saved, both encoded from one dump of the game: ``text``, its
    canonical JSON (sorted keys: what the state hash covers), and ``ordered``, the same JSON with
    every mapping in the game's own order (the units and Locations, a stack is listed and checks
    in it; the keys of a unit's tables), which the store saves."""

    text: str
    ordered: str


# The saved states of the games ``sealed_state`` serialized last, by the identity of the game
# (kept alive here, so its id cannot be reused): the store saves the very bytes the entry's state
# hash covered instead of serializing the game again (issue 14: once per command). A Game is not
# mutated once resolved (the core works on copies). Bounded: a command's state is saved right
# after its entry is sealed, and the store takes it (``saved_state(take=True)``), or lets it go
# (``release_state``: a new game's, whose row was written before its entry was sealed). Bounded by
# count and by size: 64 kept games of the largest scenario (2,000 Locations, ~6 MB each with their
# texts) held 400 MB that 64 small commands would give back only later (issue 28: scenario uploads).
_SEALED_STATES: dict[int, tuple[Game, SavedState]] = {}
_SEALED_STATES_KEPT = 64  # more than the commands in flight at once (50 channels in the bench)
_SEALED_STATES_CHARS = 4_000_000  # the kept states' canonical texts, in all (a 50-unit game's is ~30 KB)
_sealed_chars = 0  # the kept states' canonical texts now, in all


def saved_state(game: Game, *, take: bool = False) -> SavedState:
    """The state as saved and hashed, dumped once; the state sealed last in this process is not
    dumped again (``take``: the store, which saves it, lets go of it)."""
    sealed = _drop_state(game) if take else _SEALED_STATES.get(id(game))
    if sealed is not None and sealed[0] is game:
        return sealed[1]
    data = game.model_dump(mode="json")
    text = _fast(data, _FAST_SORTED, finite=_GAME_FINITE)
    if text is None:
        return SavedState(_CANONICAL.encode(data), _ORDERED.encode(data))
    # the same values orjson just wrote as the standard library does, in another order: unguarded
    return SavedState(text, orjson.dumps(data, option=_FAST_ORDERED).decode("utf-8"))


def _drop_state(game: Game) -> tuple[Game, SavedState] | None:
    """Let go of the state kept for ``game`` (whichever game held its id: then it is gone anyway)."""
    global _sealed_chars
    sealed = _SEALED_STATES.pop(id(game), None)
    if sealed is not None:
        _sealed_chars -= len(sealed[1].text)
    return sealed


def release_state(game: Game) -> None:
    """The store saved ``game``'s state another way than through ``saved_state(take=True)`` (a new game's
    row is written before its first entry is sealed): the kept encoding is let go now."""
    sealed = _SEALED_STATES.get(id(game))
    if sealed is not None and sealed[0] is game:
        _drop_state(game)


def sealed_state(game: Game) -> str:
    """``state_hash`` of the state a command is about to save: its encoding is kept for the store."""
    global _sealed_chars
    saved = saved_state(game)
    _drop_state(game)
    while _SEALED_STATES and (len(_SEALED_STATES) >= _SEALED_STATES_KEPT
                              or _sealed_chars + len(saved.text) > _SEALED_STATES_CHARS):
        _drop_state(_SEALED_STATES[next(iter(_SEALED_STATES))][0])  # the oldest first
    _SEALED_STATES[id(game)] = (game, saved)
    _sealed_chars += len(saved.text)
    return sha256(saved.text)


def state_hash(game: Game) -> str:
    """The hash of a game's whole state, as saved after an entry: its canonical JSON (the state
    sealed last in this process is not dumped again; else only the canonical text is encoded, not
    the ordered one the store saves). A replay hashes its states with ``StateHasher``
    (bot/record/state_text.py): the same hash, from the parts that did not change."""
    sealed = _SEALED_STATES.get(id(game))
    if sealed is not None and sealed[0] is game:
        return sha256(sealed[1].text)
    return sha256(game_json(game.model_dump(mode="json")))


class LogEntry(BaseModel):
    """One logged command: who, what, the dice the core consumed, the Outcome and the hashes.

    ``dice`` is the exact sequence the dice source handed out: every die of the outcome's
    rolls in order, then any manual dice given but not needed. ``ScriptedDice(dice,
    manual=manual)`` therefore reproduces the Outcome bit for bit on replay, under the rules
    version the entry was resolved with (``rules_version``, bot/core/version.py).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    game_id: int
    seq: int = Field(ge=1)
    time: str  # UTC, ISO 8601
    actor: int  # Discord user id
    command: str  # e.g. "/fire"
    order: dict[str, Any]
    dice: tuple[int, ...] = ()
    manual: bool = False
    outcome: dict[str, Any]  # Outcome.model_dump(mode="json")
    state_hash: str
    prev_hash: str
    hash: str
    interaction_id: int | None = None
    # the rules core's version when the entry was resolved: an entry without one (logged before
    # versions were recorded) reads as 1; ``seal`` stamps today's
    rules_version: int = Field(default=LEGACY_RULES_VERSION, ge=1)
    # committed dice (issue 12, docs/dice.md): the commitment in force, the sides' contributions,
    # the faces of each die drawn from the seed, and a seed revealed with the next commitment. An
    # entry without one (logged before committed dice) hashes exactly as it did before
    dice_proof: dict[str, Any] | None = None

    def _hashed_fields(self, exclude: set[str]) -> dict[str, Any]:
        body = self.model_dump(mode="json", exclude=exclude)
        if self.rules_version == LEGACY_RULES_VERSION:
            del body["rules_version"]
        if self.dice_proof is None:
            del body["dice_proof"]
        return body

    def body(self) -> dict[str, Any]:
        """Every field but the two hashes of the chain: what ``hash`` covers, with ``prev_hash``.

        An entry of the legacy rules version hashes without the field, exactly as it did before
        the field existed, so every old hash still verifies. Any other version is in the body:
        relabelling an entry's version changes its hash like any other edit."""
        return self._hashed_fields({"prev_hash", "hash"})

    def expected_hash(self) -> str:
        return chain_hash(self.prev_hash, self.body())

    def outcome_json(self) -> str:
        """The outcome's canonical JSON, as the store saves it: the text ``seal`` hashed when this
        entry was sealed in this process, else encoded now (the same bytes either way)."""
        sealed = _SEALED_OUTCOMES.get(id(self.outcome))
        if sealed is not None and sealed[0] is self.outcome:
            return sealed[1]
        return canonical_json(self.outcome)

    def _sealed_hash(self, finite: bool = False) -> tuple[str, str | None]:
        """(``expected_hash()``, the outcome's canonical JSON), encoding the outcome once.

        ``canonical_json(self.body())`` with the outcome's text spliced in at its key: a JSON
        object with sorted keys is its members in key order, so the members before "outcome",
        it, and the members after it, each run encoded alone, join to the same bytes. The outcome
        is JSON already (``Outcome.model_dump(mode="json")``), which ``model_dump(mode="json")``
        leaves as it is; one it would change (a NaN, a value that is not JSON) is hashed the
        general way, and (None) its text is left to the store. ``finite``: the outcome is an
        ``Outcome``'s dump, which holds no NaN nor infinity (``_fast``)."""
        outcome_json = _fast(self.outcome, _FAST_SORTED, finite=finite)
        if outcome_json is None:
            try:
                outcome_json = _CANONICAL_STRICT.encode(self.outcome)
            except (TypeError, ValueError):
                return self.expected_hash(), None
        body = self._hashed_fields({"prev_hash", "hash", "outcome"})
        before = canonical_json({k: v for k, v in body.items() if k < "outcome"})[1:-1]
        after = canonical_json({k: v for k, v in body.items() if k > "outcome"})[1:-1]
        members = [m for m in (before, f'"outcome":{outcome_json}', after) if m]
        return sha256(f"{self.prev_hash}{{{','.join(members)}}}"), outcome_json

    def outcome_model(self) -> Outcome:
        return Outcome.model_validate(self.outcome)

    def export(self) -> dict[str, Any]:
        """The entry as plain JSON (the format ``python -m bot rules replay`` reads)."""
        return self.model_dump(mode="json")

    @classmethod
    def seal(cls, *, prev_hash: str, outcome: dict[str, Any] | BaseModel, **fields: Any) -> "LogEntry":
        """Build an entry (under today's rules version unless told) and compute its hash from its
        content and the previous hash. ``outcome``: its JSON, or the ``Outcome`` itself (dumped
        here with ``model_dump(mode="json")``)."""
        fields.setdefault("rules_version", RULES_VERSION)
        finite = isinstance(outcome, Outcome)  # its floats refuse NaN and the infinities (a Step's)
        if isinstance(outcome, BaseModel):
            outcome = outcome.model_dump(mode="json")
        draft = cls(prev_hash=prev_hash, hash="", outcome=outcome, **fields)
        digest, outcome_json = draft._sealed_hash(finite)
        entry = draft.model_copy(update={"hash": digest})  # shares draft's outcome dict
        while len(_SEALED_OUTCOMES) >= _SEALED_OUTCOMES_KEPT:
            del _SEALED_OUTCOMES[next(iter(_SEALED_OUTCOMES))]  # the oldest first
        if outcome_json is not None:
            _SEALED_OUTCOMES[id(entry.outcome)] = (entry.outcome, outcome_json)
        return entry


def chain_hash(prev_hash: str, body: dict[str, Any]) -> str:
    return sha256(prev_hash + canonical_json(body))


def consumed_dice(outcome: Outcome) -> list[int]:
    """The dice the source gave out for an outcome, in order (rolled, then unused manual dice)."""
    return [d for roll in outcome.rolls for d in roll.dice] + list(outcome.unused_dice)
