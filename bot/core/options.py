"""The game options: one validated catalogue.

A game's ``options`` (``Game.options``) change how the bot referees it: whether results show
their whole trail, who may sit down, when the silent side is reminded, how long an undo waits,
and the rules choices of a ruleset (ASL's Heat of Battle, CD's morale direction). Every option
the code reads is declared here (the bot's own, ``GENERAL``) or by its ruleset
(``Ruleset.game_options``), with its type, its range or choices, its default and its help.
``/game new … options:`` and ``/game options`` check what is typed through ``check_options``:
an unknown name or a bad value is refused, naming the valid ones; the README's list is
generated from this catalogue (tests/test_docs.py).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from . import reactions
from .errors import InvalidOrder
from .grid import GRID_MARK

if TYPE_CHECKING:
    from .game import Game
    from .ruleset import Ruleset

Kind = Literal["yes/no", "number", "whole number", "choice", "table"]
DEFAULT_WORD = "default"  # `/game options set:undo_minutes=default` restores the default


@dataclass(frozen=True)
class GameOption:
    name: str
    kind: Kind
    help: str
    default: Any = None  # None: off (an option with no value has no effect)
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    rule: str = ""
    variants: tuple[str, ...] = ()  # the ruleset's variants it belongs to; empty: every one
    example: str = ""  # a value to show, when the default is not a good one
    # a choice that takes more than its fixed words (``hours=N``): the value as stored, or None; and what
    # it takes, in words
    parse: Callable[[Any], Any] | None = None
    takes_words: str = ""
    # the value a game created now takes when none is given, when it differs from ``default`` (the
    # value of a game logged before the option, which replays as it was played): written into the
    # new game's options, so the game keeps it whatever later versions choose
    created: Any = None

    def takes(self) -> str:
        """What the option takes, in words: 'yes or no', 'a number from 0.1 to 8,760'."""
        if self.takes_words:
            return self.takes_words
        if self.kind == "yes/no":
            return "yes or no"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "table":
            return "a table of numbers, set in a scenario file (python -m bot rules), not typed"
        what = "a whole number" if self.kind == "whole number" else "a number"
        return f"{what} from {self.low:,g} to {self.high:,g}"

    def shown(self, value: Any) -> str:
        """A value as players read it."""
        if value is None:
            return "the table's" if self.kind == "table" else "off"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, (int, float)):
            return f"{value:,g}"
        if isinstance(value, dict):
            return ", ".join(f"{k} {v}" for k, v in value.items()) or "none"
        return str(value)

    def example_value(self) -> str:
        """A value to type in an example: key=sample."""
        if self.example:
            return self.example
        if self.kind == "yes/no":
            return "no" if self.default else "yes"
        if self.kind == "choice":
            return next((c for c in self.choices if c != self.default), self.choices[0])
        if self.kind in ("number", "whole number"):
            return f"{self.default if self.default is not None else max(1, round(self.low or 0)):g}"
        return ""

    def check(self, value: Any) -> Any:
        """The value as stored, or a refusal that says what the option takes."""
        if self.kind == "table":
            if isinstance(value, dict):
                return value
            raise InvalidOrder(f"the game option {self.name} is {self.takes()}", field="options")
        ok: Any
        if self.parse is not None:
            ok = self.parse(value)
        elif self.kind == "yes/no":
            ok = value if isinstance(value, bool) else None
        elif self.kind == "choice":
            ok = next((c for c in self.choices if isinstance(value, str) and c.casefold() == value.casefold()), None)
        else:
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
            ok = value if number and (whole or self.kind == "number") and \
                self.low <= value <= self.high else None  # type: ignore[operator]
            if ok is not None and self.kind == "whole number":
                ok = int(ok)
        if ok is None:
            typed = ("yes" if value else "no") if isinstance(value, bool) else str(value)[:30]
            raise InvalidOrder(f"the game option {self.name} takes {self.takes()}, not '{typed}': "
                               f"e.g. {self.name}={self.example_value()} ({self.help})", field="options")
        return ok


GENERAL: tuple[GameOption, ...] = (
    GameOption("details", "choice", "how results are shown: outcome first with a Details button, or the whole "
               "audit trail always", default="button", choices=("button", "always")),
    GameOption("gm_peeks", "yes/no", "a game master who plays no side may look at sealed orders and secret rolls "
               "before their reveal (/peek; each look is logged for everyone to see); no: nobody but their side looks",
               default=True),
    GameOption("manual_dice", "choice", "who may give manual dice (dice: on a command, for dice thrown at the table): "
               "all players, only the game master, or none (the bot draws every die, committed and auditable)",
               default="all", choices=("all", "gm", "none"), created="none"),
    GameOption("open_seating", "yes/no", "players take a seat with /game join without the game master's approval",
               default=False),
    GameOption("remind_after_hours", "number", "hours of silence after which the side to act is reminded once; "
               "no reminders unless set", low=0.1, high=24 * 365, example="12"),
    GameOption("deadline_hours", "number", "hours the side the game waits for (the step's holder, or the side "
               "answering a reaction window) has to act, counted from the game's newest entry (the step's start, "
               "or its own last order) once play has begun; its players are reminded at half time; at the "
               "deadline the step ends with its default (no fire for a reaction window, else /done: a pass in an "
               "impulse), logged as ended by the deadline. /game deadline extends one step's deadline once, /game pause stops the clock, "
               "/away stops it for a side whose every player is away; no deadline unless set",
               low=1, high=24 * 90, example="48"),
    GameOption("reactions", "choice", "after a move that gives the other side a reaction (fire at a unit moving "
               "in the open), the mover waits for its Fire or No fire: ask (as long as it takes), hours=N (no "
               "answer in N hours is no fire), off (live play: the other side interrupts by typing); games "
               "created with remind_after_hours start with ask, others off",
               choices=(reactions.ASK, reactions.OFF), parse=reactions.check_mode, example="hours=12",
               takes_words=f"ask, off, or hours=N (N from {reactions.HOURS_MIN:g} to {reactions.HOURS_MAX:,g})"),
    GameOption("undo_minutes", "number", "minutes an undo proposal waits for the other side's answer "
               "(2,880 is 48 hours)", default=48 * 60, low=1, high=7 * 24 * 60),
    GameOption("undo_rolls", "choice", "whether an order that rolled dice may be undone: consent (by the other "
               "side; giving it again rolls new dice) or never (only the game master corrects it, with /unit edit "
               "corrects:)", default="consent", choices=("consent", "never")),
)


def created_values(given: dict[str, Any]) -> dict[str, Any]:
    """The bot's own options a game created now takes unless ``given`` names them (``created``)."""
    return {o.name: o.created for o in GENERAL if o.created is not None and o.name not in given}


# the options of a ruleset whose map the bot reads (``Ruleset.grid``, bot/core/grid.py and sight.py)
GRID_OPTIONS: tuple[GameOption, ...] = (
    GameOption("typed_range", "choice", "a range typed with /fire that differs from the one the bot counts on the "
               "map: refused (check), or taken as typed (trust: for a map the bot cannot place)",
               default="check", choices=("check", "trust")),
    GameOption("los", "choice", "the line of sight read along the map's hexes for each fire: advise (the trail shows "
               "it, its hindrances are added unless hindrance: is typed, a line read as blocked asks the firer to "
               "confirm), strict (a line read as blocked is refused), off (not read)",
               default="advise", choices=("advise", "strict", "off")),
)


def catalogue(ruleset: Ruleset) -> tuple[GameOption, ...]:
    """Every option a game of ``ruleset`` takes: the bot's own (with the map's when its ruleset has a
    grid the bot reads), then the ruleset's."""
    grid = GRID_OPTIONS if ruleset.grid is not None else ()
    return GENERAL + grid + tuple(ruleset.game_options())


def applies(option: GameOption, variant: str | None) -> bool:
    return not option.variants or variant in option.variants


def current(game: Game, option: GameOption) -> Any:
    """The option's value in ``game``: the one set, else the default."""
    return game.options.get(option.name, option.default)


def _near(name: str, names: list[str]) -> str:
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def check_options(ruleset: Ruleset, given: dict[str, Any], variant: str | None) -> dict[str, Any]:
    """``given`` (key -> value as typed) checked against the catalogue: the values as stored, None for
    an option given as ``default`` (to be cleared; an option whose games created now take another
    value than its default, ``created``: that value). Refuses an unknown name (with the names this game
    takes and the nearest one), an option of another variant, and a value the option does not take."""
    options = {o.name: o for o in catalogue(ruleset)}
    checked: dict[str, Any] = {}
    for name, value in given.items():
        option = options.get(name)
        if option is None:
            names = [n for n, o in options.items() if applies(o, variant)]
            if name in ruleset.internal_options or (name == GRID_MARK and ruleset.grid is not None):
                raise InvalidOrder(f"{name} is kept by the bot itself, not set by hand "
                                   f"(options: {', '.join(names)})", field="options")
            raise InvalidOrder(f"'{name[:40]}' is not a game option of {ruleset.title}{_near(name, names)}; "
                               f"the options are {', '.join(names)} (see /game options)", field="options")
        if not applies(option, variant):
            titles = " and ".join(ruleset.variants.get(v, v) for v in option.variants)
            raise InvalidOrder(f"the game option {name} is for {titles} games only; this game plays "
                               f"{ruleset.variants.get(variant or '', variant or ruleset.title)}", field="options")
        if isinstance(value, str) and value.casefold() == DEFAULT_WORD:
            # the default of a game created now: the option's own, or its ``created`` value, kept
            checked[name] = option.created
            continue
        if option.kind == "table" and not isinstance(value, dict):
            raise InvalidOrder(f"the game option {name} is {option.takes()}", field="options")
        checked[name] = option.check(value)
    return checked


def creation_values(ruleset: Ruleset, given: dict[str, Any], variant: str | None) -> dict[str, Any]:
    """The options of a new game: checked, with those given as ``default`` left out."""
    return {k: v for k, v in check_options(ruleset, given, variant).items() if v is not None}


def general(name: str) -> GameOption:
    """One of the bot's own options, by name."""
    return next(o for o in GENERAL + GRID_OPTIONS if o.name == name)
