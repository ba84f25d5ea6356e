"""Where a Location is on the map: the one place a Location id becomes a grid position.

A ruleset declares its grid on its class (``Ruleset.grid``, a ``HexGrid`` built in its own package
from its own rules: ASL's geomorphic boards, NHiS's four-digit hex numbers), and everything that
needs a position asks here: the battlefield picture (``bot/pictures``), the range of a fire and its
line of sight (``bot/core/sight.py``). Nothing here names a ruleset.

Positions. A hex is a ``Cell`` (column, row) on the whole playing area, column 0 the leftmost.
Hexes are flat-topped, in vertical columns; the odd columns (B, D, F... on an ASL board; 02, 04...
on a four-digit map) sit half a hex lower than the even ones for the same row number, so that A1
lies between B0 and B1. Hex centres, in hex radii: ``x = 1.5 * column``,
``y = sqrt(3) * (row + 0.5 * (column % 2))``.

Ids. ``letters``: ``C5`` is column C, row 5 (A..Z, then AA, BB, ... GG for the 27th column on);
``digits``: ``0304`` is column 03, row 04. A grid with ``board`` (ASL) may lay several boards out
(``Game.boards``, from a scenario file): a Location is then named with its board, ``32C5``; a game
of one board (or none declared) keeps the short ids. An id the grid cannot read (a building's
name, ``Farm``) has no position: the commands say so and take the value the players type.

Range: the hexes from one hex to the other, counting the target's hex and not the firer's, which
is the cube distance of the two hexes (``distance``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .errors import IllegalOrder, InvalidOrder

if TYPE_CHECKING:
    from .game import Game
    from .trail import Trail

Cell = tuple[int, int]  # (column, row) on the whole playing area
Point = tuple[float, float]

# internal game option: set in every game created since the map counts ranges (the ruleset's
# creation defaults); a game logged before has none and replays with the ranges typed
GRID_MARK = "grid"

_LETTERS = re.compile(r"^([A-Za-z])\1*([0-9]{1,3})$")  # B5, AA10 (a repeated letter)
_DIGITS = re.compile(r"^([0-9]{2})([0-9]{2})$")  # 0304
SQRT3 = math.sqrt(3)


def letters_cell(text: str) -> Cell | None:
    """(column, row) of a board-letter hex id (``B5`` -> (1, 5), ``AA10`` -> (26, 10)), or None."""
    text = text.strip()
    found = _LETTERS.match(text)
    if not found:
        return None
    column = (len(text) - len(found.group(2)) - 1) * 26 + ord(found.group(1).upper()) - ord("A")
    return column, int(found.group(2))


def digits_cell(text: str) -> Cell | None:
    """(column, row) of a four-digit hex id (``0304`` -> (2, 4): column 01 is column 0), or None."""
    found = _DIGITS.match(text.strip())
    if not found:
        return None
    return int(found.group(1)) - 1, int(found.group(2))


def column_name(column: int) -> str:
    """The board letters of a column: 0 -> A, 25 -> Z, 26 -> AA, 32 -> GG."""
    repeat, letter = divmod(column, 26)
    return chr(ord("A") + letter) * (repeat + 1)


def any_cell(text: str) -> Cell | None:
    """A position read from either kind of short hex id, for a picture with no ruleset grid."""
    return letters_cell(text) or digits_cell(text)


@dataclass(frozen=True)
class BoardSize:
    """A geomorphic board: ``columns`` columns (the last of one board is the first of the next
    board to its right, two half-hexes making one) and ``rows`` rows (the even columns numbered
    1..rows, the odd ones 0..rows, their half-hexes on the board's edges)."""

    columns: int
    rows: int
    rule: str  # where the board's layout is described


@dataclass(frozen=True)
class HexGrid:
    """A ruleset's hex grid, declared on its class (``Ruleset.grid``)."""

    ids: Literal["letters", "digits"]
    title: str  # how the map is named to players: "ASL board (columns A..GG, rows 1..10)"
    example: str  # an id players would type: "C5"
    range_rule: str  # the rule that counts range in hexes (cited in every trail)
    # the line of sight (bot/core/sight.py): the rule drawing it hex centre to hex centre, the rule for
    # a line along a hexside (blocked only when the hexes on both sides block; a hindrance on either
    # side counts), the rule for a line through a vertex, the rule adding the hindrances
    line_rule: str = ""
    hexside_rule: str = ""
    vertex_rule: str = ""
    hindrance_rule: str = ""
    board: BoardSize | None = None  # several boards may be laid out (Game.boards)
    kind: Literal["hexes"] = "hexes"

    # --- ids and positions ---

    def short_cell(self, text: str) -> Cell | None:
        """The position of a hex id on one board (or the one sheet), without a board id."""
        return letters_cell(text) if self.ids == "letters" else digits_cell(text)

    def on_board(self, cell: Cell) -> bool:
        """Whether a hex of one board's ids is on that board (a grid without boards: any hex is)."""
        if self.board is None:
            return True
        column, row = cell
        low = 1 if column % 2 == 0 else 0
        return 0 <= column < self.board.columns and low <= row <= self.board.rows

    def placed(self, cell: Cell, board: Any) -> Cell:
        """A hex of ``board`` (a ``bot.core.game.BoardPlacement``) on the whole playing area: turned
        round when the board is reversed (upside down), then moved to the board's place."""
        assert self.board is not None  # noqa: S101 - only grids with boards lay boards out
        column, row = cell
        if board.reversed:
            column, row = self.board.columns - 1 - column, (
                self.board.rows + 1 - row if column % 2 == 0 else self.board.rows - row)
        return column + board.x * (self.board.columns - 1), row + board.y * self.board.rows

    def cell(self, location_id: str, boards: Sequence[Any] = ()) -> Cell | None:
        """The position of a Location id on the playing area, or None when the grid cannot place it.
        With boards laid out, a hex is named with its board (``32C5``); with one board, or none
        declared, the short id (``C5``) too."""
        text = location_id.strip()
        if boards and self.board is not None:
            folded = text.casefold()
            for board in sorted(boards, key=lambda b: -len(b.id)):
                if folded.startswith(board.id.casefold()) and len(text) > len(board.id):
                    local = self.short_cell(text[len(board.id):])
                    if local is not None and self.on_board(local):
                        return self.placed(local, board)
            if len(boards) == 1:
                local = self.short_cell(text)
                if local is not None and self.on_board(local):
                    return self.placed(local, boards[0])
            return None
        return self.short_cell(text)

    def name(self, cell: Cell, boards: Sequence[Any] = ()) -> str:
        """The id players read for a position: ``E3`` (``32E3`` with several boards laid out)."""
        if boards and self.board is not None:
            for board in boards:
                column = cell[0] - board.x * (self.board.columns - 1)
                row = cell[1] - board.y * self.board.rows
                local = (column, row)
                if board.reversed:
                    local = (self.board.columns - 1 - column,
                             self.board.rows + 1 - row if column % 2 == 0 else self.board.rows - row)
                if 0 <= column < self.board.columns and self.on_board(local):
                    short = self._short_name(local)
                    return short if len(boards) == 1 else f"{board.id}{short}"
        return self._short_name(cell)

    def _short_name(self, cell: Cell) -> str:
        column, row = cell
        if self.ids == "letters":
            return f"{column_name(column)}{row}"
        return f"{column + 1:02d}{row:02d}"


def cube(cell: Cell) -> tuple[int, int, int]:
    """The cube coordinates of a hex (odd columns half a hex lower)."""
    column, row = cell
    x = column
    z = row - (column - (column & 1)) // 2
    return x, -x - z, z


def distance(a: Cell, b: Cell) -> int:
    """Hexes from ``a`` to ``b``: 0 for the same hex, 1 for adjacent ones."""
    ax, ay, az = cube(a)
    bx, by, bz = cube(b)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def centre(cell: Cell) -> Point:
    """A hex's centre in hex radii (flat-topped, odd columns half a hex lower)."""
    column, row = cell
    return 1.5 * column, SQRT3 * (row + 0.5 * (column & 1))


def neighbours(cell: Cell) -> list[Cell]:
    column, row = cell
    if column & 1:
        steps = ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, 0), (1, 1))
    else:
        steps = ((0, -1), (0, 1), (-1, -1), (-1, 0), (1, -1), (1, 0))
    return [(column + dc, row + dr) for dc, dr in steps]


def corners(cell: Cell) -> list[Point]:
    x, y = centre(cell)
    return [(x + math.cos(math.radians(a)), y + math.sin(math.radians(a))) for a in range(0, 360, 60)]


def at(point: Point) -> Cell:
    """The hex a point of the plane lies in (a point on a hexside: one of the two)."""
    x, y = point
    q = x / 1.5
    r = y / SQRT3 - q / 2  # axial, flat-topped
    cx, cz = q, r
    cy = -cx - cz
    rx, ry, rz = round(cx), round(cy), round(cz)
    dx, dy, dz = abs(rx - cx), abs(ry - cy), abs(rz - cz)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    else:
        rz = -rx - ry
    column = rx
    return column, rz + (column - (column & 1)) // 2


# --- a Location on the map of a game --------------------------------------------------------------------


def placer(grid: HexGrid | None, game: Game | None) -> Any:
    """The function the picture lays hexes out with: the ruleset's grid, or (a picture drawn without
    one) either kind of short id."""
    if grid is None or game is None:
        return any_cell
    return lambda location_id: grid.cell(location_id, game.boards)


def laid_out(ids: Iterable[str], place: Any) -> dict[str, Cell]:
    """The ids ``place`` can put on the grid, with their positions."""
    return {i: c for i in ids if (c := place(i)) is not None}


# --- the range of an order ---------------------------------------------------------------------------------


def counts_ranges(grid: HexGrid | None, game: Game) -> bool:
    """Whether the map counts this game's ranges: a ruleset with a grid, in a game created since it
    does (``GRID_MARK``; a game logged before replays with the ranges typed, as it was played)."""
    return grid is not None and bool(game.options.get(GRID_MARK))


def read_ranges(grid: HexGrid, game: Game, sources: Sequence[str], target: str, typed: int | None,
                trail: Trail) -> dict[str, int]:
    """The range from each firing Location in ``sources`` to ``target``, as the map counts it, each
    shown in the trail with the rule. A typed range that differs is refused (naming both numbers and
    how the map counts) unless the game option ``typed_range`` is ``trust``; where the grid cannot
    place a Location the typed range is taken, marked "typed by the players", and without one the
    order is refused, saying so."""
    target_cell = grid.cell(target, game.boards)
    out: dict[str, int] = {}
    trust = game.options.get("typed_range", "check") == "trust"
    for source in sources:
        source_cell = grid.cell(source, game.boards)
        if source_cell is None or target_cell is None:
            unplaced = source if source_cell is None else target
            if typed is None:
                raise InvalidOrder(f"the map cannot place {unplaced} ({grid.title}, e.g. {grid.example}): give the "
                                   f"range with range:", field="range")
            trail.note(f"range {typed} ({source} to {target}), typed by the players: the map cannot place "
                       f"{unplaced}", rule=grid.range_rule)
            out[source] = typed
            continue
        counted = distance(source_cell, target_cell)
        if typed is None or typed == counted:
            agrees = "" if typed is None else f"; the typed range {typed} agrees"
            trail.note(f"range {counted} ({source} to {target}), counted on the map{agrees}", rule=grid.range_rule)
            out[source] = counted
        elif trust:
            trail.note(f"range {typed} ({source} to {target}), typed by the players: the map counts {counted}, "
                       f"and the game option typed_range=trust takes the typed range", rule=grid.range_rule)
            out[source] = typed
        else:
            raise IllegalOrder(f"range {typed} was typed, but the map counts {counted} from {source} to {target} "
                               f"(hexes counted to the target's, not the firer's: {grid.range_rule}): leave range "
                               f"out to fire at range {counted}, or the game master sets typed_range=trust for a map "
                               f"the bot cannot place", field="range")
    return out
