"""VASL files for the tests, written here by hand with their own encoder (not the bot's writer, so that a
mistake of the reader and the writer alike cannot hide behind their agreement).

STRUCTURE AS OBSERVED IN SAVES WRITTEN BY VASSAL 3.x/VASL 6.x (the pacman-ghost/vasl-templates test
fixtures and examples, read on this machine as facts; NOT COPIED: every value here is our own, and no
byte of those AGPL files is in this repository). What those saves showed, and what is reproduced:

- ``savedGame`` is ``!VCSK``, a two-hex-digit key, every byte XORed with it as two hex digits; the ZIP
  also holds ``savedata`` and ``moduledata`` (name VASL, its version, VassalVersion);
- the text is ``begin_save``, an empty command, then ONE compound command (an empty command and each
  ``+/`` piece and stack, its ESCs escaped one level: ``\\<ESC>``), then ``INFO``, ``UNMASK``, the ``bd``
  board layout, ``NOTES`` with ``PNOTES`` nested (escaped), ``end_save``;
- a piece is ``+/id/type/state``: the type is each trait then its inner piece as ONE field, escaped once
  more per level (a squad has about 35 traits, outermost first: the owner property, ``mark;DBCounterType``
  unit/common/global, ``hide;`` HIP, ``moved;``, ``conceal;C;ru/ruqmark;ru;;`` with the nation,
  ``label;``, ``placeDM;`` and ``placemark;`` for DM, Pin and CX, the Embellishments (``emb2;``): the
  broken layer ("broken +" per level) and the layer of the counter's names ("4-6-7 1sq" ..), then the
  BasicPiece ``piece;K;D;<image>;<name>``); the state lines up trait for trait and ends with the
  BasicPiece's ``Main Map;x;y;gpid``;
- an Embellishment's state is its level, from 1, negative when off; a leader "6+1" is written "6\\+1";
- a stack ``+/id/stack/Main Map;x;y;id;id`` comes after its pieces, bottom to top; a "?" is a piece of its
  own (``concealment;`` trait) over the units it conceals;
- HIP: ``hide;`` state ``null`` or the player; concealed: ``conceal;`` state ``null;`` or ``player;|0``;
- the main map is "Main Map" (VASL 6.5 on; 6.4 wrote "Map0"); the margin is 400 pixels;
- ``bd`` is ``bd<TAB>`` then per board ``column<TAB>row<TAB>name<TAB>VER<TAB>version<TAB>``, boards 1-9
  named "01".."09", "r" before the name when reversed (a real save had three boards in one column, all
  reversed); overlays ``OVR<TAB>name<TAB>hex<TAB>hex`` (from VASL's LGPL source: no save at hand has one);
- a ``.vlog`` adds ``LOG<TAB>`` entries: ``M/id/map/x/y/under/oldmap/oldx/oldy/oldunder/player``,
  ``D/id/new state/old state``, and ``CHAT`` lines with the dice VASL rolled ("*** (Rally DR) 4,1 ***").

Not seen in any save at hand, so built as assumed (data/asl/vasl.yaml says so): the Pin, DM and CX marker
pieces (named as the palette slots their units place them from).

Pixels: the ASL grid of a geomorphic board (dx 56.24, dy 64.51, A1's centre at (0, 32), columns B, D, ..
half a hex lower) plus VASL's 400-pixel edge and the boards before:

- board 32 at column 0 (its corner at 400, 400), board 33 reversed at column 1 (corner at 2200, 400)
- 32C5: (112.48, 290.04) -> (512, 690)        33E4 reversed: 1800-224.96, 645-225.53 -> (3775, 819)
- 32C5/D5 hexside: midpoint of C5 and D5 (168.72, 322.30) = (140.60, 306.17) -> (541, 706)
- 32G6: (337.44, 354.55) -> (737, 755)        32H7: (393.68, 451.32) -> (794, 851)
- 32I6: (449.92, 354.55) -> (850, 755)        32J5: (506.16, 322.30) -> (906, 722)
- 32K4: (562.40, 225.53) -> (962, 626)
"""

from __future__ import annotations

import io
import zipfile

ESC = "\x1b"
MAIN = "Main Map"
OWNER = "player1"  # the owner property's state: a player's name


def enc(fields: list[str], delimiter: str) -> str:
    """SequenceEncoder as documented: a delimiter in a field gets a backslash before it; a field ending
    in a backslash, or starting and ending with a quote, goes in quotes."""
    out = []
    for text in fields:
        escaped = text.replace(delimiter, "\\" + delimiter)
        if text.endswith("\\") or (text.startswith("'") and text.endswith("'")):
            escaped = f"'{escaped}'"
        out.append(escaped)
    return delimiter.join(out)


def nest(parts: list[str]) -> str:
    """A Decorator chain: each trait, then its inner piece as one field (escaped once more per level)."""
    return parts[0] if len(parts) == 1 else enc([parts[0], nest(parts[1:])], "\t")


def emb2(key: str, images: list[str], level_names: list[str], *, property_name: str = "") -> str:
    """An Embellishment as the saves show it: 15 fields (name, keys, offsets), the images, the level
    names (a "+" in a name escaped, as "6\\+1"), then the rest."""
    fields = [key, "2", "F", "", "2", "E", "", "2", "Q", "", "", "0", "false", "0", "0",
              enc(images, ","), enc([n if n.endswith(" +") or n.startswith("+ ") else n.replace("+", "\\+")
                                     for n in level_names], ","),
              "false", property_name, "", "", "false", "", "1", "1", "false", "70,130", "", ""]
    return "emb2;" + enc(fields, ";")


def _piece_command(piece_id: str, traits: list[tuple[str, str]], basic: str, x: int, y: int, map_id: str,
                   gpid: int) -> str:
    types = [t for t, _ in traits] + [basic]
    states = [s for _, s in traits] + [enc([map_id, str(x), str(y), str(gpid)], ";")]
    return "+/" + enc([piece_id, nest(types), nest(states)], "/")


def _common(kind: str, hip: str | None, nation: str | None, concealed: str | None) -> list[tuple[str, str]]:
    """The traits every counter starts with: the owner, its counter type, HIP, moved, concealment."""
    traits = [("PROP;Owner;false,0,100,false;:77\\,650:P\\,$PlayerName$", OWNER), ("mark;DBCounterType", kind),
              ("hide;72,130;HIP;;player:;0.3", hip or "null"),
              ("translate;dir1;104,130;0;64;true;0;0;0;0;", ""), ("moved;moved", "false")]
    if nation:
        traits.append((f"conceal;C;{nation}/{nation}qmark;{nation};;", f"{concealed};|0" if concealed else "null;"))
    return traits


def piece(piece_id: str, x: int, y: int, image: str, name: str, *, basic: str | None = None, level: int = 1,
          broken: bool = False, hide: str | None = None, concealed: str | None = None, map_id: str = MAIN,
          gpid: int = 1) -> str:
    """An infantry counter (squad, half-squad, crew or leader) as VASL writes it: its nation is the
    image's prefix (``ge467S.gif`` -> ge); ``name`` is the level of its names layer shown (level
    ``level`` of a list of two, the other a name of our own), over the BasicPiece ``basic``."""
    nation = image[:2]
    stem = image.removesuffix(".gif")
    names = [name, "3-3-3 Xsq"] if level == 1 else ["3-3-3 Xsq", name]
    traits = _common("unit", hide, nation, concealed) + [
        ("label;76,130;Label;10;;0,0,0;t;0;c;0;b;c;$pieceName$ ($label$);Dialog;0;0;TextLabel;", ""),
        ("placeDM;Break;70,130;VASSAL.build.module.PieceWindow:?/VASSAL.build.widget.PieceSlot:DM;null;0;0;"
         "false;;;;0;false", ""),
        ("placemark;CX;88,130;VASSAL.build.module.PieceWindow:?/VASSAL.build.widget.PieceSlot:CX;null;0;0;"
         "false;;;;0;false", ""),
        ("placemark;Pin;80,130;VASSAL.build.module.PieceWindow:?/VASSAL.build.widget.PieceSlot:Pin;null;0;0;"
         "false;;;;2;false", ""),
        (emb2("", [f"{nation}/{stem}b", f"{nation}/{stem}xb"], ["broken +", "broken +"], property_name="BRK"),
         str(level if broken else -level)),
        (emb2("", [f"{nation}/{stem}", f"{nation}/{stem}x"], names), str(level)),
    ]
    return _piece_command(piece_id, traits, f"piece;K;D; ;{basic or name}", x, y, map_id, gpid)


def weapon(piece_id: str, x: int, y: int, nation: str, name: str, *, malf: bool = False, dm: bool = False,
           hide: str | None = None, concealed: str | None = None, map_id: str = MAIN, gpid: int = 1) -> str:
    """A support weapon: ``common``, its malfunction layer ("malf +"), for an MG its dismantled one
    ("dm +"), the BasicPiece with its image ``ge/geLMG``."""
    traits = _common("common", hide, nation, concealed) + [
        ("label;76,130;Label;10;;0,0,0;t;0;c;0;b;c;$pieceName$ ($label$);Dialog;0;0;TextLabel;", ""),
        (emb2("dm", [f"{nation}/{nation}{name}dm"], ["dm +"]), "1" if dm else "-1"),
        (emb2("malf", [f"{nation}/{nation}{name}b"], ["malf +"], property_name="BRK"), "1" if malf else "-1")]
    return _piece_command(piece_id, traits, f"piece;K;D;{nation}/{nation}{name};{name}", x, y, map_id, gpid)


def vehicle(piece_id: str, x: int, y: int, nation: str, image: str, name: str, *, concealed: str | None = None,
            map_id: str = MAIN, gpid: int = 1) -> str:
    """A vehicle: ``unit``, its info and rotation, the BU/CE layer ("+ BU") and its VCA ("+ vca3"), a
    turret, the BasicPiece ``ge/veh/pzivh``."""
    traits = [("PROP;Owner;false,0,100,false;:77\\,650:P\\,$PlayerName$", OWNER), ("mark;DBCounterType", "unit"),
              ("info;CS 7", ""), ("rotate;6;88,130;90,130;CA cw;CA ccw;;;", "0")] + \
        _common("unit", None, nation, concealed)[2:] + [
        (emb2("", [f"{nation}/{nation}BU", f"{nation}/{nation}CE"], ["+ BU", "+ CE"]), "1"),
        (emb2("", ["", "", ""], ["+ vca1", "+ vca2", "+ vca3"]), "3"),
        (f"turr;{nation}/{nation}BU;{nation}/{nation}CE;S;A;r", "")]
    return _piece_command(piece_id, traits, f"piece;K;D;{nation}/veh/{image};{name}", x, y, map_id, gpid)


def marker(piece_id: str, x: int, y: int, name: str, *, map_id: str = MAIN, gpid: int = 1) -> str:
    """A Pin, DM or CX marker: ASSUMED structure (no save at hand holds one): a ``common`` piece named
    as the palette slot its unit places it from."""
    traits = [("PROP;Owner;false,0,100,false;:77\\,650:P\\,$PlayerName$", OWNER), ("mark;DBCounterType", "common"),
              ("moved;moved", "false")]
    return _piece_command(piece_id, traits, f"piece;K;D;MS/{name.lower()};{name}", x, y, map_id, gpid)


def qmark(piece_id: str, x: int, y: int, nation: str, *, map_id: str = MAIN, gpid: int = 1) -> str:
    """A "?" concealment counter, as the saves show it: rotate, hide, moved, ``concealment;player;nation``."""
    traits = [("rotate;6;88,130;90,130;CA cw;CA ccw;;;", "0"), ("hide;72,130;HIP;;player:;0.3", "null"),
              ("moved;moved", "false"), (f"concealment;{OWNER};{nation}", "")]
    return _piece_command(piece_id, traits, f"piece;K;D;{nation}/{nation}qmark;?", x, y, map_id, gpid)


def aid(piece_id: str, x: int, y: int, name: str, *, map_id: str = MAIN, gpid: int = 1) -> str:
    """A game aid (``global``): the wind, the turn track, a label."""
    traits = [("PROP;Owner;false,0,100,false;:77\\,650:P\\,$PlayerName$", OWNER), ("mark;DBCounterType", "global"),
              ("mark;Hindrance", "true")]
    return _piece_command(piece_id, traits, f"piece;K;D; ;{name}", x, y, map_id, gpid)


def stack(stack_id: str, x: int, y: int, ids: list[str], map_id: str = MAIN) -> str:
    return "+/" + enc([stack_id, "stack", enc([map_id, str(x), str(y), *ids], ";")], "/")


def board_layout(*boards: str) -> str:
    """VASL's bd command: per board its column, row, name (r: reversed), VER and version, then the rest."""
    return "bd\t" + "bd\t".join(boards)


def saved_game(commands: list[str]) -> str:
    """The text of a save as VASL writes it: the pieces in one compound command, the board layout and the
    rest after it (any ``bd`` among ``commands`` goes where VASL writes it)."""
    layout = [c for c in commands if c.startswith("bd\t")]
    pieces = [c for c in commands if not c.startswith("bd\t")]
    return enc(["begin_save", "", enc(["", *pieces], ESC), "INFO\tAxis\tAxis\t1\t ? \t ? \t ? \t ? \t?\t?\t",
                "UNMASK\t", *(layout or ["bd\t"]), enc(["NOTES\t", "PNOTES\t"], ESC), "end_save"], ESC)


def vcsk(text: str, key: int = 0x3C) -> bytes:
    return b"!VCSK" + f"{key:02x}".encode() + bytes(b ^ key for b in text.encode()).hex().encode()


def vobs(text: str, key: int = 0x5B) -> bytes:
    """VASSAL 3.8's header (documented; no save at hand was written by 3.8)."""
    return b"VOBS" + bytes([key]) + bytes(b ^ key for b in text.encode())


def archive(saved: bytes, *, module: str = "VASL", description: str = "", extra: dict[str, bytes] | None = None,
            compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as zf:
        zf.writestr("savedGame", saved)
        zf.writestr("savedata", f'<?xml version="1.0" encoding="UTF-8"?>\n<data version="1">\n  <version></version>\n'
                                f"  <VassalVersion>3.2.17</VassalVersion>\n  <description>{description}</description>\n"
                                "</data>\n")
        zf.writestr("moduledata", f'<?xml version="1.0" encoding="UTF-8"?>\n<data version="1">\n'
                                  "  <version>6.5.1</version>\n  <VassalVersion>3.2.17</VassalVersion>\n"
                                  "  <description>Virtual Advanced Squad Leader</description>\n"
                                  f"  <name>{module}</name>\n</data>\n")
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buffer.getvalue()


SQUAD_ID = "1617000000001"  # VASSAL's own ids are long numbers: the bot names the unit itself
CANARY_CONCEALED = "CANARYQ7"  # the VASL ids of the hidden pieces: never shown to the other side
CANARY_HIP = "CANARYHIP"
CANARY_TANK = "CANARYTANK"


def two_boards_commands() -> list[str]:
    """Boards 32 and 33 (reversed) side by side; a broken German squad with a Pin in 32C5, a leader
    with an LMG in 33E4; a Russian squad on the hexside 32C5/D5, a T-34 in 32G6, a concealed squad and
    a concealed KV-1 under a ? in 32H7, a HIP leader in 32I6, a squad with DM and CX in 32J5, a
    counter in VASL's other window (the Casualties box)."""
    return [
        piece("1617000000010", 512, 690, "ge467S.gif", "4-6-7 1sq", basic="4-6-8 Esq", level=2, broken=True),
        marker("1617000000011", 512, 690, "Pin"),
        stack("1617000000100", 512, 690, ["1617000000010", "1617000000011"]),
        piece("1617000000020", 3775, 819, "geL91.gif", "9-1", basic="geLDR"),
        weapon("1617000000021", 3775, 819, "ge", "LMG"),
        stack("1617000000101", 3775, 819, ["1617000000020", "1617000000021"]),
        piece("1617000000030", 541, 706, "ru447S.gif", "4-4-7 1sq", basic="4-5-8 Esq", level=2),
        vehicle("1617000000040", 737, 755, "ru", "T34M41", "T-34 M41"),
        piece(CANARY_CONCEALED, 794, 851, "ru447S.gif", "4-4-7 1sq", basic="4-5-8 Esq", level=2),
        vehicle(CANARY_TANK, 794, 851, "ru", "KV1", "KV-1 M41"),
        qmark("1617000000051", 794, 851, "ru"),
        stack("1617000000102", 794, 851, [CANARY_CONCEALED, CANARY_TANK, "1617000000051"]),
        piece(CANARY_HIP, 850, 755, "ruL81.gif", "8-1", basic="ruLDR", hide="player2"),
        piece(SQUAD_ID, 906, 722, "ru447S.gif", "4-4-7 1sq", basic="4-5-8 Esq", level=2),
        marker("1617000000061", 906, 722, "DM"),
        marker("1617000000062", 906, 722, "CX"),
        stack("1617000000103", 906, 722, [SQUAD_ID, "1617000000061", "1617000000062"]),
        piece("1617000000070", 100, 100, "ru447S.gif", "4-4-7 1sq", map_id="Casualties"),
        board_layout("0\t0\t32\tVER\t6.1\t", "1\t0\tr33\tVER\t6.1\t"),
    ]


def two_boards(header: str = "vcsk", description: str = "Hexes and hexsides") -> bytes:
    text = saved_game(two_boards_commands())
    raw = {"vcsk": vcsk, "vobs": vobs, "plain": str.encode}[header](text)
    return archive(raw, description=description)


def log_file() -> bytes:
    """A .vlog: the two-board game, then LOG entries: the Russian squad moves from 32J5 to 32K4 (its DM
    and CX stay behind), the German squad rallies (its broken layer off: the layer's state -2), and the
    dice VASL rolled in the chat."""
    move = "M/" + enc([SQUAD_ID, MAIN, "962", "626", "null", MAIN, "906", "722", "null", "player2"], "/")
    before = piece("1617000000010", 512, 690, "ge467S.gif", "4-6-7 1sq", basic="4-6-8 Esq", level=2, broken=True)
    after = piece("1617000000010", 512, 690, "ge467S.gif", "4-6-7 1sq", basic="4-6-8 Esq", level=2)
    rally = "D/" + enc(["1617000000010", _state_of(after), _state_of(before)], "/")
    chat = "CHAT*** (Rally DR) 3,1 ***   <Ivan>      [1 / 1   avg   4.00 (4.00)]    (01.46)"
    text = enc(["begin_save", "", enc(["", *[c for c in two_boards_commands() if not c.startswith("bd")]], ESC),
                "UNMASK\t", two_boards_commands()[-1], "end_save", "LOG\t" + move, "LOG\t" + enc([rally, chat], ESC)],
               ESC)
    return archive(vcsk(text), description="A log")


def _state_of(command: str) -> str:
    """The state part of a ``+/id/type/state`` command (the reader's split is not used here)."""
    fields, field, escaped = [], "", False
    for ch in command[2:]:
        if ch == "/" and escaped:
            field = field[:-1] + ch
        elif ch == "/":
            fields.append(field)
            field = ""
        else:
            field += ch
        escaped = ch == "\\"
    fields.append(field)
    return fields[2]
