"""VASL's saved games and logs (``.vsav``, ``.vlog``): read into a scenario, and a game written back.

From the public description of the format (issue 31; facts from VASSAL's and VASL's LGPL sources, no
code, no counter or board art), checked against 35 files written by VASSAL 3.2/3.4 with VASL 6.4-6.6
(read as facts, none copied; docs/scenarios.md gives what they showed):

- the file is a ZIP holding ``savedGame`` (and the XML ``savedata`` and ``moduledata``);
- ``savedGame`` is obfuscated: ``!VCSK``, a two-hex-digit key and every byte XORed with it as two hex
  digits (through VASSAL 3.7: every real file at hand), or ``VOBS``, one raw key byte and the raw XORed
  bytes (3.8), or plain;
- the text is ``begin_save``, commands separated by ESC, ``end_save``, each level of nesting escaped
  as VASSAL's SequenceEncoder does (a delimiter inside a field gets a backslash; a field ending in a
  backslash, or starting and ending with a quote, is quoted). VASL puts the pieces in one compound
  command (its ESCs escaped once), then ``INFO``, ``bd`` and the notes. Commands: ``+/id/type/state``
  (add a piece), ``-/id``, ``D/id/new[/old]``, ``M/id/map/x/y/under/...``; in a log, ``LOG\t`` entries
  and ``CHAT`` lines (VASL's dice among them);
- a piece's type and state are TAB-nested trait lists lined up one to one (35 to 47 traits for a VASL
  counter), the innermost ``piece;clone;delete;image;name`` with the state ``map;x;y;gpid``; a
  ``stack`` lists its pieces bottom to top after ``map;x;y``;
- VASL's board layout is one command, ``bd`` TAB, then per board: column, row, name (``r`` before it
  when reversed; boards 1-9 as "01".."09"), the crop (x, y, width, height) when cropped, ``VER`` and
  the version, each overlay as ``OVR`` name hex hex, ``SSR`` changes, ``ZOOM``.

Where a piece stands: its pixel on VASL's main map ("Main Map"; "Map0" up to VASL 6.4), less the
400-pixel edge and the boards before it, reversed, unzoomed, uncropped, then the ASL hex grid of the
board (``data/asl/boards.yaml``) names the hex, ``32C5`` (or ``C5`` in a one-board game), or ``C5/D5``
on a hexside. Which counter it is: its Concealment trait's nation (else its layers' images) gives the
nationality, its name through its active layers the counter of the library (``data/asl/vasl.yaml``).
Pure: bytes in, a scenario out; nothing is created here (the game is set up whole or refused whole
by ``bot.scenario``, like a scenario file).
"""

from __future__ import annotations

import hashlib
import io
import math
import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from xml.etree import ElementTree

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...data import data_path
from ...errors import InvalidOrder
from ...fileformat import Exported, FileFormat, Imported
from ...game import Game
from ...scenario import (HIDDEN_MAX, Scenario, ScenarioBoard, ScenarioHidden, ScenarioLocation, ScenarioSide,
                         ScenarioUnit)
from ...setup import ID_PATTERN, MAX_UNITS
from . import counters

ESC = "\x1b"
MAX_FILE = 4 * 1024 * 1024  # a long .vlog is a few hundred KB
MAX_SAVED_GAME = 24 * 1024 * 1024  # savedGame uncompressed (hex obfuscation doubles the text)
MAX_METADATA = 64 * 1024  # savedata, moduledata
MAX_TOTAL = 32 * 1024 * 1024  # every entry read, uncompressed
MAX_RATIO = 500  # uncompressed / compressed: a repetitive log compresses ~250x, a zip bomb of deflate ~1000x
MAX_ENTRIES = 64
MAX_DEPTH = 32  # commands nested in one command
MAX_TRAITS = 128  # traits of one piece: a VASL squad has about 45
MAX_PIECES = 20_000
NAME_MAX = 60
BOARD_OPTION = "vasl_board"  # the game option naming the board of a one-board game (its ids name none)


class VaslRefused(InvalidOrder):
    """A VASL file the bot does not read: one line saying why; nothing is created."""

    def __init__(self, message: str):
        super().__init__(f"VASL file: {message}", field="file")


# --- data: board geometry and the counters' names ----------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Grid(_Strict):
    width: int = Field(ge=100, le=20000)
    height: int = Field(ge=100, le=20000)
    dx: float = Field(gt=10, lt=500)
    dy: float = Field(gt=10, lt=500)
    origin_x: float
    origin_y: float
    columns: int = Field(ge=1, le=78)
    rows: int = Field(ge=1, le=99)
    alternate: bool = False  # the B, D, .. columns numbered one higher (1 to rows + 1, no row 0)

    def odd_shift(self) -> float:
        """Rows of the B, D, .. columns from the A1 row: half a hex lower, less a whole row when alternate."""
        return 1.5 if self.alternate else 0.5


class GridOverride(_Strict):
    width: int | None = Field(default=None, ge=100, le=20000)
    height: int | None = Field(default=None, ge=100, le=20000)
    dx: float | None = Field(default=None, gt=10, lt=500)
    dy: float | None = Field(default=None, gt=10, lt=500)
    origin_x: float | None = None
    origin_y: float | None = None
    columns: int | None = Field(default=None, ge=1, le=78)
    rows: int | None = Field(default=None, ge=1, le=99)
    alternate: bool | None = None


class BoardsFile(_Strict):
    rule: str
    assumed: tuple[str, ...] = ()
    edge: int = Field(ge=0, le=2000)
    hexside_tolerance: float = Field(gt=0, lt=20)
    geomorphic: Grid
    boards: dict[str, GridOverride] = Field(default_factory=dict)

    def grid(self, board: str) -> Grid | None:
        """The grid of a board VASL names; None for one the bot does not know (a historical map)."""
        override = self.boards.get(board.casefold())
        if override is not None:
            return self.geomorphic.model_copy(update=override.model_dump(exclude_none=True))
        return self.geomorphic if re.fullmatch(r"0*[1-9]\d{0,2}", board) else None


class Nationality(_Strict):
    nationality: str
    side: str
    side_name: str = Field(max_length=60)
    letter: str = Field(pattern=r"^[A-Z]$")


class WeaponLayer(_Strict):
    flag: str = ""  # the unit's flag the layer sets; none: named in the reply instead
    name: str = Field(min_length=1, max_length=30)


class NamesFile(_Strict):
    rule: str
    assumed: tuple[str, ...] = ()
    board_maps: tuple[str, ...] = Field(min_length=1)
    nationalities: dict[str, Nationality]
    sides: dict[str, str]
    kinds: dict[str, str]
    export_kinds: dict[str, str]
    quality_letters: dict[str, str]
    broken_words: tuple[str, ...]
    weapon_layers: dict[str, WeaponLayer]
    game_aids: tuple[str, ...] = ()
    markers: dict[str, str]
    concealment: tuple[str, ...]
    hidden_traits: dict[str, str]
    nation_trait: str


@lru_cache(maxsize=1)
def boards() -> BoardsFile:
    with open(data_path("asl", "boards.yaml"), encoding="utf-8") as fh:
        return BoardsFile.model_validate(yaml.safe_load(fh))


@lru_cache(maxsize=1)
def names() -> NamesFile:
    with open(data_path("asl", "vasl.yaml"), encoding="utf-8") as fh:
        data = NamesFile.model_validate(yaml.safe_load(fh))
    bad = [n.side for n in data.nationalities.values() if n.side not in data.sides]
    if bad:
        raise ValueError(f"vasl.yaml: nationalities on sides not listed under sides: {bad}")
    return data


# --- VASSAL's SequenceEncoder: fields in one string ------------------------------------------------


def split(value: str, delimiter: str) -> list[str]:
    """The fields of ``value`` (VASSAL's SequenceEncoder.Decoder): a delimiter after a backslash is
    part of the field; a field in quotes loses them. A field left ending in a lone backslash, which the
    encoder never writes, is refused as a malformed escape. Linear in the text (positions, no copies
    of the rest: a log holds a great many commands)."""
    out: list[str] = []
    pos = 0
    while True:
        parts: list[str] = []
        begin, end = pos, value.find(delimiter, pos)
        while end > begin and value[end - 1] == "\\":
            parts.append(value[begin:end - 1])
            begin, end = end, value.find(delimiter, end + 1)
        last = end < 0
        parts.append(value[begin:] if last else value[begin:end])
        token = "".join(parts)
        if len(token) > 1 and token[0] == "'" and token[-1] == "'":
            token = token[1:-1]
        elif last and value.endswith("\\") and not value.endswith("\\\\"):
            raise VaslRefused("a field ends in a lone backslash (a malformed escape): the file is damaged")
        out.append(token)
        if last:
            return out
        pos = end + 1


def join(fields: list[str], delimiter: str) -> str:
    """``split``'s reverse (SequenceEncoder.append for each field)."""
    out = []
    for text in fields:
        escaped = text.replace(delimiter, "\\" + delimiter)
        if text.endswith("\\") or (text.startswith("'") and text.endswith("'")):
            escaped = f"'{escaped}'"
        out.append(escaped)
    return delimiter.join(out)


# --- the file: ZIP, obfuscation, text ----------------------------------------------------------------


def is_vasl(data: bytes) -> bool:
    """A VASSAL saved game or log: a ZIP whose entries include ``savedGame`` (by content, not name)."""
    if not data.startswith(b"PK\x03\x04"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "savedGame" in archive.namelist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return False


def _entry(archive: zipfile.ZipFile, name: str, cap: int, total: list[int]) -> bytes | None:
    try:
        info = archive.getinfo(name)
    except KeyError:
        return None
    if info.flag_bits & 0x1:
        raise VaslRefused(f"{name} is encrypted")
    if info.file_size > cap:
        raise VaslRefused(f"{name} would unpack to {info.file_size:,} bytes; the most read is {cap:,}")
    if info.file_size > 1024 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise VaslRefused(f"{name} unpacks {info.file_size // max(info.compress_size, 1):,} times its size "
                          f"(a zip bomb?); a saved game unpacks at most {MAX_RATIO} times")
    try:
        with archive.open(info) as fh:
            data = fh.read(cap + 1)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise VaslRefused(f"{name} cannot be unpacked ({exc})") from None
    if len(data) > cap:  # the header lied about the size
        raise VaslRefused(f"{name} unpacks to more than {cap:,} bytes")
    total[0] += len(data)
    if total[0] > MAX_TOTAL:
        raise VaslRefused(f"the archive unpacks to more than {MAX_TOTAL:,} bytes")
    return data


def deobfuscate(raw: bytes) -> str:
    """``savedGame``'s text: ``!VCSK`` + hex key + hex pairs, ``VOBS`` + key byte + bytes, or plain."""
    if raw.startswith(b"PK\x03\x04"):
        raise VaslRefused("savedGame is itself a ZIP archive (nested archives are not read)")
    if raw.startswith(b"!VCSK"):
        body = raw[5:].strip()
        if len(body) < 2 or len(body) % 2:
            raise VaslRefused("savedGame's !VCSK text has an odd number of hex digits: the file is damaged")
        try:
            key, payload = int(body[:2], 16), bytes.fromhex(body[2:].decode("ascii"))
        except (ValueError, UnicodeDecodeError):
            raise VaslRefused("savedGame's !VCSK text holds characters that are not hex digits") from None
        plain = bytes(b ^ key for b in payload)
    elif raw.startswith(b"VOBS"):
        if len(raw) < 5:
            raise VaslRefused("savedGame's VOBS header has no key")
        key = raw[4]
        plain = bytes(b ^ key for b in raw[5:])
    elif raw.lstrip().startswith(b"begin_save"):
        plain = raw.lstrip()
    else:
        head = raw[:8].decode("ascii", "replace").encode("unicode_escape").decode()
        raise VaslRefused(f"savedGame starts with '{head}', not a header VASSAL writes (!VCSK, VOBS or begin_save)")
    try:
        return plain.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VaslRefused(f"savedGame is not UTF-8 text once decoded (byte {exc.start})") from None


def obfuscate(text: str, key: int) -> bytes:
    """``!VCSK`` as VASSAL through 3.7 writes it (every VASSAL since reads it too)."""
    return b"!VCSK" + f"{key:02x}".encode() + bytes(b ^ key for b in text.encode("utf-8")).hex().encode()


def _metadata(raw: bytes | None) -> dict[str, str]:
    """The XML fields of savedata/moduledata (name, version, description, VassalVersion ...)."""
    if not raw:
        return {}
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
        raise VaslRefused("its metadata declares XML entities, which VASSAL never writes")
    try:
        root = ElementTree.fromstring(raw)
    except ElementTree.ParseError as exc:
        raise VaslRefused(f"its metadata is not well-formed XML ({exc})") from None
    return {child.tag: (child.text or "").strip() for child in root}


# --- the commands: pieces, stacks, boards ------------------------------------------------------------


@dataclass
class Trait:
    type: str
    state: str

    @property
    def kind(self) -> str:
        return self.type[:self.type.find(";") + 1] if ";" in self.type else self.type


@dataclass
class Piece:
    id: str
    traits: list[Trait]  # outermost first; the BasicPiece is not among them
    image: str
    basic_name: str
    map: str | None
    x: int
    y: int

    def name(self) -> str:
        """The name VASSAL shows: the BasicPiece's, changed by each active layer from the innermost
        (Embellishment: a level named ``text+`` puts its text before the name, ``+text`` after, ``text``
        replaces it; a ``+`` after a backslash is the character, as in VASL's leader "6\\+1")."""
        name = self.basic_name
        for trait in reversed(self.traits):
            level = layer_name(trait)
            if not level:
                continue
            parts = split(level, "+")
            if len(parts) > 1:
                name = name + parts[1] if not parts[0] else parts[0] + name
            else:
                name = parts[0]
        return _plain(name)

    def layer_names(self) -> list[str]:
        return [n for n in (layer_name(t) for t in self.traits) if n]

    def nations(self) -> list[str]:
        """What names the counter's nation, surest first: its Concealment trait's nation ("ru"), the
        images of its active layers ("ru/ru527S"), its own image ("ruMMG")."""
        out = []
        trait_kind = names().nation_trait
        for trait in self.traits:
            if trait.kind == trait_kind:
                fields = split(trait.type[len(trait_kind):], ";")
                if len(fields) > 2 and fields[2]:
                    out.append(fields[2])
        for trait in self.traits:
            image = layer_image(trait)
            if image:
                out.append(image.rsplit("/", 1)[-1])
                if "/" in image:
                    out.append(image.split("/", 1)[0])
        out.append(self.image)
        return [n for n in out if n.strip()]

    def game_aid(self) -> bool:
        """A piece VASL marks as a game aid, no counter of either side (its ``mark;DBCounterType`` is
        ``global``: turn track, EC, wind, sniper, labels, perimeters; seen in a VASL save)."""
        return any(t.type == "mark;DBCounterType" and t.state == "global" for t in self.traits) or \
            any(self.basic_name.startswith(start) for start in names().game_aids)

    def hidden(self) -> str | None:
        """HIP or concealed by a trait whose state names the player hiding it."""
        for trait in self.traits:
            word = names().hidden_traits.get(trait.kind)
            if word and trait.state.split(";")[0] not in ("", "null"):
                return word
        return None


def _plain(text: str) -> str:
    """A name from the file on one line: control characters and runs of blanks as one space, at most
    200 characters (it is shown in replies and written in hidden parts)."""
    return re.sub(r"[\s\x00-\x1f\x7f]+", " ", text[:400]).strip()[:200]


def _active_level(trait: Trait, field_index: int) -> str | None:
    """Of an Embellishment (``emb2;``) whose state is the active level (from 1; below 1: off, the
    level it would show kept as a negative number), the entry of that level in a comma list field
    (15: the images, 16: the names)."""
    if trait.kind != "emb2;":
        return None
    fields = split(trait.type[len(trait.kind):], ";")
    try:
        value = int(split(trait.state, ";")[0])
    except ValueError:
        return None
    if value < 1 or len(fields) <= field_index:
        return None
    entries = split(fields[field_index], ",") if fields[field_index] else []
    return entries[value - 1] if value - 1 < len(entries) else None


def layer_name(trait: Trait) -> str | None:
    """The name of an Embellishment's active level."""
    return _active_level(trait, 16)


def layer_image(trait: Trait) -> str | None:
    """The image of an Embellishment's active level ("ru/ru527S")."""
    return _active_level(trait, 15)


def _nested(text: str) -> list[str]:
    """A TAB-nested list (a piece's type or state: each trait, then its inner piece as one field, escaped
    once more per level) as its fields, outermost first."""
    out: list[str] = []
    while True:
        if len(out) > MAX_TRAITS:
            raise VaslRefused(f"a piece nests more than {MAX_TRAITS} traits")
        fields = split(text, "\t")
        if len(fields) == 1:
            return out + fields
        out.append(fields[0])
        text = "\t".join(fields[1:]) if len(fields) > 2 else fields[1]


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise VaslRefused(f"{what} '{text[:20]}' is not a whole number (a malformed command)") from None


def make_piece(piece_id: str, type_text: str, state_text: str) -> Piece | None:
    """A piece from its type and state; None for a kind the bot does not read (a deck, a module's own
    piece): skipped, never guessed. A state with fewer fields than the traits reads them empty, as
    VASSAL does."""
    types, states = _nested(type_text), _nested(state_text)
    if not types[-1].startswith("piece;"):
        return None
    states = (states + [""] * len(types))[:len(types)] if len(states) != len(types) else states
    basic = split(types[-1], ";") + ["", "", "", "", ""]
    where = split(states[-1], ";") + ["null", "0", "0"]
    map_id = None if where[0] in ("null", "") else where[0]
    x, y = (_int(where[1], "a position"), _int(where[2], "a position")) if map_id else (0, 0)
    return Piece(id=piece_id, traits=[Trait(t, s) for t, s in zip(types[:-1], states[:-1])],
                 image=basic[3].rsplit("/", 1)[-1][:200], basic_name=_plain(basic[4]), map=map_id, x=x, y=y)


def _set_state(piece: Piece, state_text: str) -> None:
    states = _nested(state_text)
    states = (states + [""] * (len(piece.traits) + 1))[:len(piece.traits) + 1]
    for trait, state in zip(piece.traits, states):
        trait.state = state
    where = split(states[-1], ";") + ["null", "0", "0"]
    piece.map = None if where[0] in ("null", "") else where[0]
    if piece.map:
        piece.x, piece.y = _int(where[1], "a position"), _int(where[2], "a position")


@dataclass
class Stack:
    id: str
    map: str | None
    x: int
    y: int
    members: list[str]


@dataclass
class Board:
    column: int
    row: int
    name: str
    reversed: bool = False
    crop: tuple[int, int, int, int] | None = None  # x, y, width, height on the uncropped board
    version: str = ""
    overlays: tuple[tuple[str, str, str], ...] = ()  # each overlay's name and the two hexes it is placed on
    ssr: str = ""
    zoom: float = 1.0

    @property
    def id(self) -> str:
        """The board as players name it: VASL's "02" is board 2 (its hexes 2C5)."""
        return self.name.lstrip("0") or self.name if re.fullmatch(r"\d+", self.name) else self.name

    def size(self) -> tuple[int, int] | None:
        """The board's size on the map (cropped and zoomed); None when its grid is unknown."""
        grid = boards().grid(self.name)
        if grid is None:
            return None
        w, h = grid.width, grid.height
        if self.crop is not None:
            cx, cy, cw, ch = self.crop
            w = cw if cw > 0 else w - cx
            h = ch if ch > 0 else h - cy
        return round(w * self.zoom), round(h * self.zoom)

    def state(self) -> str:
        """The board as VASL's ``bd`` command writes it (ASLBoard's state: column, row, name, the crop
        when cropped, ``VER`` and the version always, ``OVR`` and each overlay, ``SSR``, ``ZOOM``)."""
        parts = [str(self.column), str(self.row), ("r" if self.reversed else "") + self.name]
        if self.crop is not None:
            parts += [str(v) for v in self.crop]
        parts += ["VER", self.version or "0.0"]
        for overlay in self.overlays:
            parts += ["OVR", *overlay]
        text = "\t".join(parts) + "\t"
        if self.ssr:
            text += "SSR\t" + self.ssr
        if self.zoom != 1.0:
            text += f"\tZOOM\t{self.zoom!r}"
        return text

    def described(self) -> str:
        """What VASL lays on the board that the bot does not apply: its overlays, where, and its SSR."""
        parts = [f"overlay {name} at {self.id}{first}" + (f"-{second}" if second and second != first else "")
                 for name, first, second in self.overlays]
        if self.ssr:
            parts.append(f"SSR terrain changes {self.ssr.strip()}")
        return f"board {self.id}: {', '.join(parts)}" if parts else ""


def parse_boards(command: str) -> list[Board]:
    """VASL's ``bd`` command: each board's column, row, name (``r``: reversed), crop, version,
    overlays, SSR and zoom."""
    out: list[Board] = []
    for chunk in command[3:].split("bd\t"):
        tokens = [t for t in re.split(r"[\t\n]", chunk) if t]
        if not tokens:
            continue
        if len(tokens) < 3:
            raise VaslRefused(f"the board layout '{chunk[:30]}' has no column, row and name")
        column, row, name = _int(tokens[0], "a board's column"), _int(tokens[1], "a board's row"), tokens[2]
        reversed_ = False
        if name.startswith("r") and boards().grid(name) is None and boards().grid(name[1:]) is not None:
            name, reversed_ = name[1:], True
        board = Board(column=column, row=row, name=name, reversed=reversed_)
        rest = tokens[3:]
        if len(rest) >= 4 and all(re.fullmatch(r"-?\d+", t) for t in rest[:4]):
            board.crop = (int(rest[0]), int(rest[1]), int(rest[2]), int(rest[3]))
            rest = rest[4:]
        overlays: list[tuple[str, str, str]] = []
        i = 0
        while i < len(rest):
            token = rest[i]
            if token == "VER" and i + 1 < len(rest):
                board.version, i = rest[i + 1], i + 2
            elif token == "OVR":
                name_, first, second = (rest[i + 1:i + 4] + ["", "", ""])[:3]
                overlays.append((_plain(name_)[:20], _plain(first)[:8], _plain(second)[:8]))
                i += 4
            elif token == "ZOOM" and i + 1 < len(rest):
                try:
                    board.zoom = float(rest[i + 1])
                except ValueError:
                    raise VaslRefused(f"board {name}'s zoom '{rest[i + 1][:10]}' is not a number") from None
                if not 0.1 <= board.zoom <= 10:
                    raise VaslRefused(f"board {name}'s zoom {board.zoom} is not between 0.1 and 10")
                i += 2
            elif token == "SSR":
                j = rest.index("ZOOM", i) if "ZOOM" in rest[i:] else len(rest)
                board.ssr, i = _plain(" ".join(rest[i + 1:j]))[:200], j
            else:
                overlays.append((_plain(token)[:20], "", ""))  # an overlay written without OVR (older VASL)
                i += 1
        board.overlays = tuple(overlays)
        out.append(board)
    seen: set[tuple[int, int]] = set()
    for board in out:
        if (board.column, board.row) in seen:
            raise VaslRefused(f"two boards are laid out at column {board.column}, row {board.row}")
        seen.add((board.column, board.row))
    return out


@dataclass
class SavedGame:
    """What a saved game (or a log, played to its end) holds."""

    boards: list[Board] = field(default_factory=list)
    pieces: dict[str, Piece] = field(default_factory=dict)
    stacks: dict[str, Stack] = field(default_factory=dict)
    metadata: dict[str, str] = field(default_factory=dict)
    module: dict[str, str] = field(default_factory=dict)
    log_entries: int = 0
    chat: list[str] = field(default_factory=list)  # chat lines of a log: dice typed in VASL, never used
    skipped: int = 0  # commands of other kinds (chat, the module's own), not read

    def stack_of(self, piece_id: str) -> Stack | None:
        return next((s for s in self.stacks.values() if piece_id in s.members), None)

    def apply(self, command: str, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            raise VaslRefused(f"commands nest more than {MAX_DEPTH} deep")
        if command.startswith("LOG\t"):
            self.log_entries += 1
            for sub in split(command[4:], ESC):
                self.apply(sub, depth + 1)
        elif ESC in command:
            for sub in split(command, ESC):
                self.apply(sub, depth + 1)
        elif command.startswith("+/"):
            fields = split(command[2:], "/")
            if len(fields) < 3:
                raise VaslRefused("an add-piece command (+/) has no id, type and state")
            piece_id, type_text, state_text = fields[0], fields[1], fields[2]
            if len(self.pieces) + len(self.stacks) >= MAX_PIECES:
                raise VaslRefused(f"more than {MAX_PIECES:,} pieces")
            if type_text == "stack":
                where = split(state_text, ";")
                if len(where) < 3:
                    raise VaslRefused(f"stack {piece_id[:20]} has no position")
                map_id = None if where[0] == "null" else where[0]
                self.stacks[piece_id] = Stack(piece_id, map_id, _int(where[1], "a position") if map_id else 0,
                                              _int(where[2], "a position") if map_id else 0,
                                              [m for m in where[3:] if m and not m.startswith("@@")])
            else:
                piece = make_piece(piece_id, type_text, state_text)
                if piece is None:
                    self.skipped += 1
                else:
                    self.pieces[piece_id] = piece
        elif command.startswith("-/"):
            piece_id = command[2:]
            self.pieces.pop(piece_id, None)
            self.stacks.pop(piece_id, None)
            for stack in self.stacks.values():
                if piece_id in stack.members:
                    stack.members.remove(piece_id)
        elif command.startswith("D/"):
            fields = split(command[2:], "/")
            if len(fields) < 2:
                raise VaslRefused("a change command (D/) has no id and state")
            if fields[0] in self.stacks:
                where = split(fields[1], ";")
                stack = self.stacks[fields[0]]
                if len(where) >= 3 and where[0] != "null":
                    stack.map, stack.x, stack.y = where[0], _int(where[1], "a position"), _int(where[2], "a position")
                stack.members = [m for m in where[3:] if m and not m.startswith("@@")]
            elif fields[0] in self.pieces:
                _set_state(self.pieces[fields[0]], fields[1])
        elif command.startswith("M/"):
            fields = split(command[2:], "/")
            if len(fields) < 5:
                raise VaslRefused("a move command (M/) has no id, map, x, y and the piece under it")
            self._move(fields[0], None if fields[1] == "null" else fields[1], _int(fields[2], "a position"),
                       _int(fields[3], "a position"), None if fields[4] == "null" else fields[4])
        elif command.startswith("bd\t"):
            self.boards = parse_boards(command)
        elif command.startswith("CHAT"):
            line = _plain(command[4:300])
            if line:
                self.chat.append(line)
        elif command not in ("begin_save", "end_save", ""):
            self.skipped += 1

    def _move(self, piece_id: str, map_id: str | None, x: int, y: int, under: str | None) -> None:
        piece = self.pieces.get(piece_id)
        if piece is None:
            stack = self.stacks.get(piece_id)
            if stack is not None:
                stack.map, stack.x, stack.y = map_id, x, y
            return
        old = self.stack_of(piece_id)
        if old is not None:
            old.members.remove(piece_id)
        piece.map, piece.x, piece.y = map_id, x, y
        target = self.stack_of(under) if under else None
        if target is not None:
            target.members.insert(target.members.index(under) + 1, piece_id)  # type: ignore[arg-type]
            return
        target = next((s for s in self.stacks.values() if (s.map, s.x, s.y) == (map_id, x, y)), None)
        if target is None:
            target = Stack(f"moved-{piece_id}", map_id, x, y, [])
            self.stacks[target.id] = target
        target.members.append(piece_id)

    def heaps(self) -> list[tuple[str | None, int, int, list[Piece]]]:
        """Each stack on a map (bottom to top), and each piece outside a stack as a stack of one."""
        out = []
        stacked: set[str] = set()
        for stack in self.stacks.values():
            members = [self.pieces[m] for m in stack.members if m in self.pieces]
            stacked.update(p.id for p in members)
            if members:
                out.append((stack.map, stack.x, stack.y, members))
        out += [(p.map, p.x, p.y, [p]) for p in self.pieces.values() if p.id not in stacked]
        return out


def read_saved_game(data: bytes) -> SavedGame:
    """The saved game of a ``.vsav``/``.vlog``, refused (``VaslRefused``) if it is not one, is damaged
    or hostile (size, zip bomb, nesting, unknown header, malformed escapes)."""
    if len(data) > MAX_FILE:
        raise VaslRefused(f"the file has {len(data):,} bytes; a VASL file read here has at most {MAX_FILE:,}")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError):
        raise VaslRefused("it is not a ZIP archive (a .vsav or .vlog is one)") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ENTRIES:
            raise VaslRefused(f"the archive holds {len(infos):,} files; a saved game holds a few")
        total = [0]
        raw = _entry(archive, "savedGame", MAX_SAVED_GAME, total)
        if raw is None:
            raise VaslRefused("the archive has no savedGame: it is not a VASSAL saved game or log")
        saved = SavedGame(metadata=_metadata(_entry(archive, "savedata", MAX_METADATA, total)),
                          module=_metadata(_entry(archive, "moduledata", MAX_METADATA, total)))
    module = saved.module.get("name", "")
    if module and module.casefold() not in ("vasl", "asl"):
        raise VaslRefused(f"it is a saved game of the VASSAL module '{module[:40]}', not of VASL")
    text = deobfuscate(raw)
    commands = split(text.rstrip(), ESC)
    if not commands or commands[0] != "begin_save":
        raise VaslRefused("the saved game does not start with begin_save")
    if "end_save" not in commands:
        raise VaslRefused("the saved game has no end_save: it is cut short")
    for command in commands:
        saved.apply(command)
    return saved


# --- where a pixel is: board and hex ---------------------------------------------------------------


def column_name(index: int) -> str:
    """A, B, .. Z, then AA, BB, .. (a doubled letter, as printed on the boards)."""
    return chr(ord("A") + index % 26) * (index // 26 + 1)


def column_index(name: str) -> int | None:
    name = name.upper()
    if not name or name != name[0] * len(name) or not "A" <= name[0] <= "Z":
        return None
    return (len(name) - 1) * 26 + ord(name[0]) - ord("A")


def hex_centre(grid: Grid, column: int, row: int) -> tuple[float, float]:
    """The centre of a hex on the uncropped board at zoom 1 (odd columns by index sit half a hex lower)."""
    y = grid.origin_y + grid.dy * (row - 1 if column % 2 == 0 else row - grid.odd_shift())
    return grid.origin_x + grid.dx * column, y


def on_grid(grid: Grid, column: int, row: int) -> bool:
    if column % 2 == 0 or not grid.alternate:
        return 0 <= column < grid.columns and (1 if column % 2 == 0 else 0) <= row <= grid.rows
    return 0 <= column < grid.columns and 1 <= row <= grid.rows + 1


def hex_at(grid: Grid, x: float, y: float) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
    """The hex (column, row) nearest the point, and the other hex when the point lies on their
    hexside; None off the grid."""
    u = (x - grid.origin_x) / grid.dx
    candidates = []
    for column in (math.floor(u), math.floor(u) + 1):
        v = (y - grid.origin_y) / grid.dy + (1 if column % 2 == 0 else grid.odd_shift())
        for row in (math.floor(v), math.floor(v) + 1):
            if on_grid(grid, column, row):
                cx, cy = hex_centre(grid, column, row)
                candidates.append((math.hypot(x - cx, y - cy), column, row))
    if not candidates:
        return None
    candidates.sort()
    _, column, row = candidates[0]
    if len(candidates) > 1:
        _, c2, r2 = candidates[1]
        ax, ay = hex_centre(grid, column, row)
        bx, by = hex_centre(grid, c2, r2)
        adjacent = math.hypot(ax - bx, ay - by) < 1.2 * grid.dy
        if adjacent and math.hypot(x - (ax + bx) / 2, y - (ay + by) / 2) <= boards().hexside_tolerance:
            first, second = sorted([(column, row), (c2, r2)])
            return first, second
    return (column, row), None


def _inside(lx: int, ly: int, size: tuple[int, int], strict: bool) -> bool:
    """Within a board of ``size``: its right and bottom edges belong to the next board when ``strict``."""
    if strict:
        return 0 <= lx < size[0] and 0 <= ly < size[1]
    return 0 <= lx <= size[0] and 0 <= ly <= size[1]


@dataclass(frozen=True)
class Layout:
    """Where each board lies on Map0: VASL puts the boards of a row side by side, the rows one under
    the other, inside an edge margin."""

    boards: tuple[Board, ...]

    def origins(self) -> dict[int, tuple[int, int] | None]:
        """Each board's top left corner on the map (by index); None when a board before it in its row
        or column has no known size (a historical map)."""
        edge = boards().edge
        out: dict[int, tuple[int, int] | None] = {}
        for i, board in enumerate(self.boards):
            x = y = edge
            known = True
            for other in self.boards:
                size = other.size()
                if other.row == board.row and other.column < board.column:
                    known = known and size is not None
                    x += size[0] if size else 0
                if other.column == board.column and other.row < board.row:
                    known = known and size is not None
                    y += size[1] if size else 0
            out[i] = (x, y) if known else None
        return out

    def prefix(self, board: Board) -> str:
        return board.id if len(self.boards) > 1 else ""

    def locate(self, x: int, y: int) -> tuple[str, str | None]:
        """("32C5", None), a hexside ("32C5/D5", None), off the boards ("", None), or ("", why) when the
        point is on a board the bot cannot read."""
        origins = self.origins()
        readable = [(i, b) for i, b in enumerate(self.boards) if origins[i] is not None and b.size() is not None]
        for strict in (True, False):  # a point on the line between two boards: the board it starts
            for i, board in readable:
                size, origin = board.size(), origins[i]
                assert size is not None and origin is not None
                if _inside(x - origin[0], y - origin[1], size, strict):
                    return self._hex(board, x - origin[0], y - origin[1], size)
        unknown = [b.id for b in self.boards if b.size() is None]
        edge = boards().edge
        if unknown and x >= edge and y >= edge:
            return "", f"on or after board {', '.join(unknown)}, a map the bot has no grid for"
        return "", None

    def _hex(self, board: Board, lx: float, ly: float, size: tuple[int, int]) -> tuple[str, str | None]:
        grid = boards().grid(board.name)
        assert grid is not None
        if board.reversed:
            lx, ly = size[0] - lx, size[1] - ly
        fx, fy = lx / board.zoom, ly / board.zoom
        if board.crop is not None:
            fx, fy = fx + board.crop[0], fy + board.crop[1]
        found = hex_at(grid, fx, fy)
        if found is None:
            return "", f"off the hex grid of board {board.id}"
        (c, r), other = found
        name = f"{self.prefix(board)}{column_name(c)}{r}"
        return (f"{name}/{column_name(other[0])}{other[1]}" if other else name), None

    def centre(self, board_index: int, column: int, row: int) -> tuple[int, int]:
        """The pixel on the map of a hex's centre (boards written uncropped, at zoom 1; a reversed board
        turned about its middle, as VASL turns it), a whole pixel inside its board: column GG's centre
        (1799.68) is not on the next board's A, B0's not above it."""
        board = self.boards[board_index]
        grid = boards().grid(board.name)
        origin = self.origins()[board_index]
        assert grid is not None and origin is not None
        cx, cy = hex_centre(grid, column, row)
        if board.reversed:
            cx, cy = grid.width - cx, grid.height - cy
        return origin[0] + min(max(round(cx), 0), grid.width - 1), origin[1] + min(max(round(cy), 0),
                                                                                  grid.height - 1)


# --- the counters: a VASL piece as a library counter --------------------------------------------------

_NUMBERS = re.compile(r"^(\d{1,2}-\d{1,2}-\d{1,2}|\d{1,2}[-+]\d|[A-Za-z]{2,4})$")


def nationality_of(image: str) -> tuple[str, Nationality] | None:
    """The nationality a nation code or an image's name names (the longest listed prefix)."""
    folded = image.casefold()
    hits = [(prefix, n) for prefix, n in names().nationalities.items() if folded.startswith(prefix.casefold())]
    return max(hits, key=lambda h: len(h[0])) if hits else None


def nationality_of_piece(piece: Piece) -> tuple[str, Nationality] | None:
    """The nationality of a counter: from the first of its nation hints (``Piece.nations``) that names
    one; None when the surest hint names a nation the library has no counters of (ax, ja ..)."""
    trait_kind = names().nation_trait
    stated = [split(t.type[len(trait_kind):], ";") for t in piece.traits if t.kind == trait_kind]
    if stated and len(stated[0]) > 2 and stated[0][2]:
        return nationality_of(stated[0][2])  # the nation VASL gives it, known or not: never a guess
    for hint in piece.nations():
        found = nationality_of(hint)
        if found is not None:
            return found
    return None


def counter_of(piece: Piece) -> tuple[str | None, str]:
    """(library type, the name read) of a piece: the library counter of its nationality whose printed
    name is a word of the piece's name, told apart by a kind word (1sq, Ehs, Icr) when two share a name."""
    data = names()
    found = nationality_of_piece(piece)
    full = piece.name()
    if found is None:
        return None, full
    nationality = found[1].nationality
    broken = [w.casefold() for w in data.broken_words]
    words = [w for w in re.split(r"\s+", full) if w and w.casefold() not in broken]
    kind = next((data.kinds[w.casefold()] for w in words if w.casefold() in data.kinds), None)
    printed = [w for w in words if _NUMBERS.match(w)]
    library = counters.library().counters
    for word in printed:
        matches = [key for key, c in library.items() if c.nationality == nationality and
                   c.name.casefold() == word.casefold()]
        if len(matches) > 1 and kind is not None:
            matches = [key for key in matches if library[key].kind == kind] or matches
        if len(matches) == 1:
            return matches[0], full
    return None, full


def _layer_words(piece: Piece) -> set[str]:
    return {word for name in piece.layer_names() for word in re.split(r"[\s+]+", name.casefold()) if word}


def is_broken(piece: Piece) -> bool:
    """An active layer whose name has a broken word ("broken +")."""
    return bool(_layer_words(piece) & {w.casefold() for w in names().broken_words})


def weapon_states(piece: Piece) -> list[WeaponLayer]:
    """A weapon's active layers the bot reads ("malf +", "dm +")."""
    words = _layer_words(piece)
    return [layer for word, layer in names().weapon_layers.items() if word.casefold() in words]


def marker_of(piece: Piece) -> str | None:
    """The unit flag a marker piece sets (Pin -> pinned), "?" for concealment, None for a counter."""
    data = names()
    name = piece.basic_name.strip()
    if name.casefold() in (c.casefold() for c in data.concealment):
        return "?"
    return next((flag for word, flag in data.markers.items() if word.casefold() == name.casefold()), None)


# --- a saved game as a scenario --------------------------------------------------------------------


@dataclass
class _Unit:
    piece: Piece
    type: str
    side: str  # axis / allied
    nationality: Nationality
    location: str | None
    hidden: str | None  # HIP / concealed
    markers: list[str] = field(default_factory=list)
    holder: _Unit | None = None
    id: str = ""
    unread: list[str] = field(default_factory=list)  # a weapon's VASL state the bot has no flag for (dm)

    @property
    def kind(self) -> str:
        return counters.library().counters[self.type].kind


def _readable(piece_id: str) -> bool:
    """A VASL piece id players can type (one our own export wrote); VASSAL's own ids are long numbers."""
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9_.\-]{0,23}", piece_id)) and bool(re.fullmatch(ID_PATTERN, piece_id))


def to_scenario(saved: SavedGame) -> Imported:
    """The scenario a saved game sets up, and what could not be mapped (public: never a hidden piece)."""
    layout = Layout(tuple(saved.boards))
    units: list[_Unit] = []
    not_mapped: list[str] = []
    hidden_lines: dict[str, list[str]] = {}
    other_windows = 0
    aids: dict[str, int] = {}
    weapon_notes: list[_Unit] = []
    for map_id, x, y, pieces in saved.heaps():
        if map_id not in names().board_maps:
            other_windows += len(pieces)
            continue
        location, why = layout.locate(x, y)
        where = f"in {location}" if location else f"({why})" if why else "off the boards"
        hexside = "/" in location
        concealed_from = max((i for i, p in enumerate(pieces) if marker_of(p) == "?"), default=-1)
        stack_units: list[_Unit] = []
        for i, piece in enumerate(pieces):
            hidden = piece.hidden() or ("concealed" if i < concealed_from else None)
            marker = marker_of(piece)
            if marker == "?":
                continue
            if marker is not None:
                below = next((u for u in reversed(stack_units) if u.kind != "sw"), None)
                if below is not None:
                    below.markers.append(marker)
                elif not hidden:
                    not_mapped.append(f"{piece.basic_name} marker {where}, with no unit under it")
                continue
            if piece.game_aid() and not hidden:
                aids[piece.name()[:NAME_MAX]] = aids.get(piece.name()[:NAME_MAX], 0) + 1
                continue
            kind, read_name = counter_of(piece)
            found = nationality_of_piece(piece)
            if kind is None or found is None or why or hexside:
                reason = ("on a hexside: infantry stands in a hex" if hexside and kind
                          else "its board has no grid here" if why and kind
                          else _why_not(piece, read_name, found))
                line = f"{read_name[:NAME_MAX] or piece.image or 'a piece'} {where}: {reason}"
                if hidden and found is not None:
                    hidden_lines.setdefault(found[1].side, []).append(f"{hidden}, not mapped: {line}")
                elif not hidden:
                    not_mapped.append(line)
                continue
            unit = _Unit(piece, kind, found[1].side, found[1], location or None, hidden)
            if is_broken(piece):
                unit.markers.append("broken")
            for state in weapon_states(piece) if unit.kind == "sw" else ():
                if state.flag:
                    unit.markers.append(state.flag)
                else:
                    unit.unread.append(state.name)
            if unit.unread and not hidden:
                weapon_notes.append(unit)
            stack_units.append(unit)
        for j, unit in enumerate(stack_units):  # a support weapon: the nearest of its side under it, else over
            if unit.kind != "sw":
                continue
            under = [u for u in reversed(stack_units[:j]) if u.kind != "sw" and u.side == unit.side
                     and bool(u.hidden) == bool(unit.hidden)]
            over = [u for u in stack_units[j + 1:] if u.kind != "sw" and u.side == unit.side
                    and bool(u.hidden) == bool(unit.hidden)]
            unit.holder = (under or over or [None])[0]
        units += stack_units
    _name_units(units)
    not_mapped = [line if n == 1 else f"{line} (x{n})" for line, n in Counter(not_mapped).items()]
    library = counters.library().counters
    side_keys = list(names().sides)[:2]
    placed = sum(1 for u in units if not u.hidden)
    if placed > MAX_UNITS:
        raise VaslRefused(f"it holds {placed:,} counters the bot maps; a game has at most {MAX_UNITS}")
    for unit in units:
        if unit.hidden:
            counter = library[unit.type]
            held = f" held by the {library[unit.holder.type].name} there" if unit.holder else ""
            flags = f" ({', '.join(unit.markers)})" if unit.markers else ""
            hidden_lines.setdefault(unit.side, []).append(
                f"{unit.hidden}: {counter.name} ({unit.type}){flags} in {unit.location or 'off board'}{held}")
    sides = []
    for key in side_keys:
        mine = [u for u in units if u.side == key and not u.hidden]
        nationalities = {u.nationality.nationality for u in units if u.side == key}
        first = next((u.nationality for u in units if u.side == key), None)
        one = first if len(nationalities) == 1 else None
        text = None
        if hidden_lines.get(key):
            text = ("Hidden set-up read from the VASL file (place each with /unit add when revealed):\n"
                    + "\n".join(f"- {line}" for line in hidden_lines[key]))
            if len(text) > HIDDEN_MAX:
                raise VaslRefused(f"the hidden set-up of {one.side_name if one else names().sides[key]} takes "
                                  f"{len(text):,} characters; a sealed part holds at most {HIDDEN_MAX:,} (reveal "
                                  "some concealed units in VASL first)")
        sides.append(ScenarioSide(
            name=one.side_name if one else names().sides[key], nationality=one.nationality if one else None,
            units=[ScenarioUnit(id=u.id, type=u.type, location=None if u.holder else u.location,
                                held_by=u.holder.id if u.holder else None, markers=list(dict.fromkeys(u.markers)))
                   for u in mine],
            hidden=ScenarioHidden(text=text) if text else None))
    located = list(dict.fromkeys(u.location for u in units if u.location and not u.hidden))
    described = (saved.metadata.get("description") or "").strip()
    title = described.splitlines()[0][:100] if described else "VASL game"
    one = saved.boards[0].id if len(saved.boards) == 1 else ""
    scenario = Scenario(ruleset="asl", variant="full", title=title,
                        options={BOARD_OPTION: int(one)} if one.isdigit() and 1 <= int(one) <= 999 else {},
                        boards=scenario_boards(saved.boards),
                        locations=[ScenarioLocation(id=loc) for loc in located], sides=sides)
    if saved.boards:
        notes = [f"Boards: {layout_text(saved.boards)}."]
    else:
        notes = ["VASL laid out no board in this file: every counter is read off board (no Location); set each "
                 "unit's Location with /unit edit before play."]
    changed = [b.described() for b in saved.boards if b.overlays or b.ssr]
    if changed:
        notes.append(f"Not applied: {'; '.join(changed)}. The bot has no overlay or SSR terrain data: the hexes "
                     "under each overlay and those each SSR changes start as open ground like the rest; set their "
                     "terrain with /location set.")
    notes.append("Terrain is not read from VASL: each Location starts as open ground; set each with /location set "
                 "(or edit the scenario file /scenario export writes) before the first shot.")
    if weapon_notes:
        notes.append("Weapon state VASL shows that the bot does not keep: "
                     + ", ".join(f"{u.id} ({', '.join(u.unread)})" for u in weapon_notes) + ".")
    if aids:
        shown = ", ".join(f"{name} x{n}" if n > 1 else name for name, n in list(aids.items())[:12])
        more = f" and {len(aids) - 12} more" if len(aids) > 12 else ""
        notes.append(f"Game aids not read (no counter of either side): {shown.rstrip('.')}{more}.")
    if other_windows:
        notes.append(f"{other_windows} piece{'s' if other_windows != 1 else ''} in VASL's other windows (off the "
                     "map) not read.")
    if saved.chat:
        shown = "; ".join(line.strip() for line in saved.chat[:10])
        more = f" (and {len(saved.chat) - 10} more)" if len(saved.chat) > 10 else ""
        notes.append(f"Typed in VASL (chat, dice never used): {shown}{more}.")
    if saved.log_entries:
        notes.append(f"The position is the log's end, after its {saved.log_entries} entries.")
    return Imported(scenario=scenario, not_mapped=tuple(not_mapped), notes=tuple(notes))


def _why_not(piece: Piece, read_name: str, found: tuple[str, Nationality] | None) -> str:
    """Why a counter is not mapped, as precisely as the file says."""
    if found is None:
        hint = next(iter(piece.nations()), "")
        nation = next((fields[2] for fields in (split(t.type[len(names().nation_trait):], ";") for t in piece.traits
                                                if t.kind == names().nation_trait) if len(fields) > 2), "")
        if nation:
            return f"its nation '{nation[:8]}' has no counters in the library"
        return "not an infantry unit, leader or support weapon the counter library knows" if hint else \
            "a piece with no nation (a marker or game aid the bot does not read)"
    layer_words = {w.casefold() for w in read_name.split()}
    if any(w.startswith("vca") for w in layer_words):  # every VASL vehicle shows its VCA layer ("+ vca3")
        return "a vehicle: the bot referees infantry, leaders and support weapons"
    if any(re.fullmatch(r"ca\d", w) for w in layer_words):  # a gun shows its CA ("+ ca3")
        return "a gun: the bot referees infantry, leaders and support weapons"
    words = [w for w in read_name.split() if _NUMBERS.match(w) and re.search(r"\d", w)]
    if words:
        return f"no {found[1].nationality} {words[0]} in the counter library"
    return "not an infantry unit, leader or support weapon the counter library knows"


def scenario_boards(layout: list[Board]) -> list[ScenarioBoard]:
    """The scenario's boards as VASL lays them out (column and row, reversed); none for one board the
    right way up (its hexes are named C5, the board kept in the game option ``vasl_board``), and none
    when one of them is not a board the bot can name and place (a historical map, more than 9 across)."""
    if len(layout) == 1 and not layout[0].reversed:
        return []
    try:
        return [ScenarioBoard(id=b.id, x=b.column, y=b.row, reversed=b.reversed) for b in layout
                if boards().grid(b.name) is not None] if all(boards().grid(b.name) for b in layout) else []
    except ValidationError:
        return []


def layout_text(layout: list[Board] | tuple[Board, ...]) -> str:
    """The layout in words: "2 (column 0, row 0), r5 (reversed; column 0, row 1)"."""
    if all(b.row == 0 for b in layout) and not any(b.reversed for b in layout):
        return ", ".join(b.id for b in layout)
    return ", ".join(f"{b.id} ({'reversed; ' if b.reversed else ''}column {b.column}, row {b.row})" for b in layout)


def _name_units(units: list[_Unit]) -> None:
    """Ids players type: a readable VASL id kept (our export writes ours), else G1, GL1, GLMG1 ..."""
    used: set[str] = set()
    for unit in units:
        if not unit.hidden and _readable(unit.piece.id) and unit.piece.id.casefold() not in used:
            unit.id = unit.piece.id
            used.add(unit.id.casefold())
    counts: dict[str, int] = {}
    for unit in units:
        if unit.id or unit.hidden:
            continue
        counter = counters.library().counters[unit.type]
        stem = unit.nationality.letter + {"leader": "L", "hero": "H"}.get(counter.kind, "") + \
            (counter.sw_type or "" if counter.kind == "sw" else "")
        while True:
            counts[stem] = counts.get(stem, 0) + 1
            candidate = f"{stem}{counts[stem]}"
            if candidate.casefold() not in used:
                break
        unit.id = candidate
        used.add(candidate.casefold())


def read(data: bytes) -> Imported:
    return to_scenario(read_saved_game(data))


# --- a game written as a .vsav ---------------------------------------------------------------------

_LOCATION = re.compile(r"^(?P<board>.*?)(?P<column>([A-Za-z])\3?)(?P<row>\d{1,2})$")
_MARKER_NAMES = {"pinned": "Pin", "dm": "DM", "cx": "CX"}
SW_APART = 10  # pixels right of the hex centre: inside the hex, far from its hexsides (28 pixels and more)


def vasl_name(unit: Any) -> str:
    """The counter's name as VASL's level names read: "4-6-7 1sq", "2-4-8 Ehs", "2-2-8 Icr", "9-1"."""
    data = names()
    counter = counters.library().counters.get(unit.type)
    printed = counter.name if counter is not None else unit.name
    word = data.export_kinds.get(unit.kind)
    if word is None:
        return printed
    quality = getattr(counter, "quality", None) if unit.kind in ("squad", "half-squad") else None
    return f"{printed} {data.quality_letters.get(str(getattr(quality, 'value', quality or '')), '')}{word}"


def _prefix(nationality: str) -> str | None:
    return next((p for p, n in names().nationalities.items() if n.nationality == nationality), None)


def _layer(key: str, images: list[str], level_names: list[str]) -> str:
    """An Embellishment (``emb2;``) as a VASL save holds it: 15 fields of keys and offsets, its images
    and its level names (a ``+`` of a counter's name escaped, "6\\+1"), then the rest."""
    written = [n if n.endswith(" +") or n.startswith("+ ") else n.replace("+", "\\+") for n in level_names]
    fields = [key, "2", "F", "", "2", "E", "", "2", "Q", "", "", "0", "false", "0", "0", join(images, ","),
              join(written, ","), "false", "", "", "", "false", "", "1", "1", "false", "", "", ""]
    return "emb2;" + join(fields, ";")


def _nest(parts: list[str]) -> str:
    """A Decorator chain: each trait, then its inner piece as one field, escaped once more per level."""
    text = parts[-1]
    for part in reversed(parts[:-1]):
        text = join([part, text], "\t")
    return text


def vasl_board_name(board_id: str) -> str:
    """The board's name in VASL's layout: boards 1 to 9 with a leading zero ("02"), as VASL writes them."""
    return f"{int(board_id):02d}" if board_id.isdigit() and int(board_id) < 10 else board_id


def write(game: Game) -> Exported:
    """The game's position as a ``.vsav``: the board layout and one piece per unit and marker, in one
    stack per hex (each unit, then the weapons it holds, then its markers). The boards are the game's
    own (a scenario's ``boards:``: column, row, reversed); a game without boards is laid out on the
    board its game option ``vasl_board`` names (board 1 if none) for short ids, and on the boards its
    ids name (``32C5``) side by side."""
    library = counters.library().counters
    board = str(game.options.get(BOARD_OPTION) or 1)
    laid = list(getattr(game, "boards", None) or [])
    placed: dict[str, tuple[int, int, int]] = {}  # location -> board index, column, row
    left_out: list[str] = []
    if laid:
        layout = Layout(tuple(Board(column=b.x, row=b.y, name=vasl_board_name(b.id), reversed=b.reversed)
                              for b in laid))
    else:
        named = [m.group("board") or board for m in map(_LOCATION.match, dict.fromkeys(
            u.location for u in game.units.values() if u.location)) if m is not None
            and boards().grid(m.group("board") or board) is not None]
        layout = Layout(tuple(Board(column=i, row=0, name=vasl_board_name(n))
                              for i, n in enumerate(dict.fromkeys(named or [board]))))
    origins = layout.origins()
    index = {b.id if b.id.isdigit() else b.id.casefold(): i for i, b in enumerate(layout.boards)}
    for loc in dict.fromkeys(u.location for u in game.units.values() if u.location):
        match = _LOCATION.match(loc)
        name = (match.group("board") or (layout.boards[0].id if len(layout.boards) == 1 else "")) if match else ""
        i = index.get((name.lstrip("0") or name) if name.isdigit() else name.casefold())
        grid = boards().grid(layout.boards[i].name) if i is not None else None
        column = column_index(match.group("column")) if match else None
        row = int(match.group("row")) if match else 0
        if i is None or grid is None or origins[i] is None or column is None or not on_grid(grid, column, row):
            left_out.append(loc)
            continue
        placed[loc] = (i, column, row)
    pieces: list[str] = []
    main = names().board_maps[0]
    stacks: list[tuple[str, int, int, list[str]]] = []
    not_written: list[str] = []
    own_numbers: list[str] = []
    own_state: list[str] = []

    def piece(unit: Any, x: int, y: int) -> list[str]:
        prefix = _prefix(unit.nationality)
        printed = library[unit.type].name
        stem = re.sub(r"[^A-Za-z0-9]", "", printed)
        where = join([main, str(x), str(y), "0"], ";")
        common: list[tuple[str, str]] = [
            ("mark;DBCounterType", "common" if unit.kind == "sw" else "unit"),
            ("hide;72,130;HIP;;player:;0.3", "null"),
            (f"conceal;C;{prefix}/{prefix}qmark;{prefix};;", "null;")]
        if unit.kind == "sw":
            traits = common + [(_layer("malf", [f"{prefix}/{prefix}{stem}b"], ["malf +"]),
                                "1" if getattr(unit, "malfunctioned", False) else "-1")]
            basic = join(["piece", "K", "D", f"{prefix}/{prefix}{stem}", printed], ";")
        else:
            traits = common + [(_layer("", [f"{prefix}/{prefix}{stem}b"], ["broken +"]), "1" if unit.broken else "-1"),
                               (_layer("", [f"{prefix}/{prefix}{stem}"], [vasl_name(unit)]), "1")]
            basic = join(["piece", "K", "D", " ", vasl_name(unit)], ";")
        type_text = _nest([t for t, _ in traits] + [basic])
        state_text = _nest([v for _, v in traits] + [where])
        out = [join([unit.id, type_text, state_text], "/")]
        for flag, marker in _MARKER_NAMES.items():
            if getattr(unit, flag, False):
                out.append(join([f"{unit.id}-{flag}", _nest(["mark;DBCounterType", join(
                    ["piece", "K", "D", f"MS/{flag}", marker], ";")]), _nest(["common", where])], "/"))
        return out

    holders: dict[str, list[Any]] = {}
    for unit in game.units.values():
        if getattr(unit, "owner", None):
            holders.setdefault(unit.owner, []).append(unit)
    margin = 0
    groups: dict[tuple[int, int], list[Any]] = {}
    for unit in game.units.values():
        if getattr(unit, "owner", None) and unit.owner in game.units:
            continue
        if unit.type not in library or _prefix(unit.nationality) is None:
            not_written += [f"{u.id} ({u.name})" for u in [unit, *holders.get(unit.id, [])]]
            continue
        if unit.location is None:
            x, y = boards().edge + 80 * margin, boards().edge // 2
            margin += 1
        elif unit.location in placed:
            b, c, r = placed[unit.location]
            x, y = layout.centre(b, c, r)
        else:
            not_written += [f"{u.id} in {unit.location}" for u in [unit, *holders.get(unit.id, [])]]
            continue
        if unit.kind == "sw" and unit.location is not None:
            x += SW_APART  # a weapon no one holds: a stack of its own in the hex, so no unit takes it up
        groups.setdefault((x, y), []).append(unit)
    for (x, y), members in groups.items():
        ids: list[str] = []
        order = [u for u in members if u.kind != "sw"] + [u for u in members if u.kind == "sw"]
        for unit in order:
            for held in [unit, *holders.get(unit.id, [])]:
                if held is not unit and (held.type not in library or _prefix(held.nationality) is None):
                    not_written.append(f"{held.id} ({held.name})")
                    continue
                base = counters.unit_fields(held.type) or {}
                if any(getattr(held, k, v) != v for k, v in base.items() if k != "name"):
                    own_numbers.append(held.id)
                state = _unwritten_state(held, base)
                if state:
                    own_state.append(f"{held.id} ({', '.join(state)})")
                for command in piece(held, x, y):
                    pieces.append("+/" + command)
                    ids.append(split(command, "/")[0])
        stacks.append((f"S{len(stacks) + 1}", x, y, ids))
    for sid, x, y, ids in stacks:
        pieces.append("+/" + join([sid, "stack", join([main, str(x), str(y), *ids], ";")], "/"))
    # as VASL writes a save: an empty command, the pieces in one compound, the board layout
    text = join(["begin_save", "", join(["", *pieces], ESC), "bd\t" + "bd\t".join(b.state() for b in layout.boards),
                 "end_save"], ESC)
    key = hashlib.sha256(text.encode()).digest()[0] or 0x2A
    title = game.scenario or "Referee game"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("savedGame", obfuscate(text, key))
        archive.writestr("savedata", _xml({"version": "1", "VassalVersion": "3.7", "description": title}))
        archive.writestr("moduledata", _xml({"version": "", "VassalVersion": "3.7", "name": "VASL",
                                             "description": "written by the Referee bot"}))
    notes = [f"Boards: {layout_text(layout.boards)}; counters are VASL pieces named as VASL names them, their art "
             "looked up by image name (VASL's own images may be named otherwise: a counter may show without its "
             "art, its name and state kept)."]
    if left_out:
        notes.append(f"Not placed (not a hex of a board the bot knows): {', '.join(left_out)}.")
    if not_written:
        notes.append(f"Not written (no VASL counter for them): {', '.join(not_written)}.")
    if own_numbers:
        notes.append(f"Numbers changed from the printed counter are not kept in VASL: {', '.join(own_numbers)}.")
    if own_state:
        notes.append(f"State VASL is not given (markers the bot does not write): {', '.join(own_state)}.")
    return Exported(data=buffer.getvalue(), extension=".vsav", notes=tuple(notes))


WRITTEN = frozenset({"id", "type", "name", "side", "location", "owner", "broken", "malfunctioned", *_MARKER_NAMES})


def _unwritten_state(unit: Any, printed: dict[str, Any]) -> list[str]:
    """The unit's state a .vsav does not carry (a fire marker, malfunctioned, berserk, ...): each field
    set away from its printed value or its default, by name."""
    fields = type(unit).model_fields
    out = []
    for key, info in fields.items():
        if key in WRITTEN or key in printed:
            continue
        value = getattr(unit, key)
        if value != info.get_default(call_default_factory=True):
            out.append(key.replace("_", " "))
    return out


def _xml(fields: dict[str, str]) -> bytes:
    root = ElementTree.Element("data", version="1")
    for tag, text in fields.items():
        ElementTree.SubElement(root, tag).text = text
    return b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>' + ElementTree.tostring(root)


FORMAT = FileFormat(name="vasl", title="VASL saved game (.vsav) or log (.vlog)", extensions=(".vsav", ".vlog"),
                    max_bytes=MAX_FILE, detect=is_vasl, read=read, write=write)
