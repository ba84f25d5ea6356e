"""VASL files for the tests, BUILT FROM THE FORMAT AS DOCUMENTED (issue 31: the public description of
VASSAL's saved games and VASL's board layout; facts taken from VASSAL's and VASL's LGPL sources, no
code). No file made in VASSAL itself is available offline, so none of these was saved by VASSAL: each
is written here by hand, with its own encoder (not the bot's writer), so that a mistake of the reader
and the writer alike cannot hide behind their agreement.

The pixels are hand-computed from the ASL grid of a geomorphic board (dx 56.24, dy 64.51, A1's centre
at (0, 32), columns B, D, .. half a hex lower) plus VASL's 400-pixel edge and the boards before:

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


def layer(level_names: list[str], images: list[str]) -> str:
    """An Embellishment (emb2): 15 fields of keys and offsets, the images, the level names, then the rest."""
    fields = ["Flip", "130", "F", "", "130", "", "", "130", "", "", "", "1", "false", "0", "0",
              enc(images, ","), enc(level_names, ","), "true", "Layer", "", "", "false", "", "1", "1", "false",
              "70,130", "", ""]
    return "emb2;" + enc(fields, ";")


def piece(piece_id: str, x: int, y: int, image: str, name: str, *, layers: tuple[tuple[list[str], int], ...] = (),
          hide: str | None = None, obs: str | None = None, map_id: str = "Map0") -> str:
    types, states = [], []
    for level_names, value in layers:
        types.append(layer(level_names, [image.replace(".gif", f"{i}.gif") for i in range(len(level_names))]))
        states.append(str(value))
    if hide is not None:
        types.append("hide;72,130;HIP")  # the Hideable trait: its state is the player hiding it, or null
        states.append(hide)
    if obs is not None:
        types.append("obs;67,130;conceal.gif;Concealed")  # Obscurable: masked by the player in its state
        states.append(obs)
    types.append(enc(["piece", "", "", image, name], ";"))
    states.append(enc([map_id, str(x), str(y), "0"], ";"))
    return "+/" + enc([piece_id, nest(types), nest(states)], "/")


def stack(stack_id: str, x: int, y: int, ids: list[str], map_id: str = "Map0") -> str:
    return "+/" + enc([stack_id, "stack", enc([map_id, str(x), str(y), *ids, "@@-1"], ";")], "/")


def board_layout(*boards: str) -> str:
    """VASL's bd command: per board its column, row, name (r: reversed), then the rest, TAB-separated."""
    return "bd\t" + "bd\t".join(boards)


def saved_game(commands: list[str]) -> str:
    return enc(["begin_save", *commands, "end_save"], ESC)


def vcsk(text: str, key: int = 0x3C) -> bytes:
    return b"!VCSK" + f"{key:02x}".encode() + bytes(b ^ key for b in text.encode()).hex().encode()


def vobs(text: str, key: int = 0x5B) -> bytes:
    return b"VOBS" + bytes([key]) + bytes(b ^ key for b in text.encode())


def archive(saved: bytes, *, module: str = "VASL", description: str = "", extra: dict[str, bytes] | None = None,
            compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as zf:
        zf.writestr("savedGame", saved)
        zf.writestr("savedata", f'<?xml version="1.0"?><data version="1"><version>1</version>'
                                f"<description>{description}</description></data>")
        zf.writestr("moduledata", f'<?xml version="1.0"?><data version="1"><name>{module}</name>'
                                  "<version>6.6.8</version><VassalVersion>3.7.12</VassalVersion></data>")
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buffer.getvalue()


BROKEN = (["broken +"], 1)  # the broken layer, active
UNBROKEN = (["broken +"], -1)

SQUAD_ID = "1617000000001"  # VASSAL's own ids are long numbers: the bot names the unit itself
CANARY_CONCEALED = "CANARYQ7"  # the VASL ids of the hidden pieces: never shown to the other side
CANARY_HIP = "CANARYHIP"
CANARY_TANK = "CANARYTANK"


def two_boards_commands() -> list[str]:
    """Boards 32 and 33 (reversed) side by side; a broken German squad with a Pin in 32C5, a leader
    with an LMG in 33E4; a Russian squad on the hexside 32C5/D5, a T-34 in 32G6, a concealed squad and
    a concealed KV-1 under a ? in 32H7, a HIP leader in 32I6, a squad with DM and CX in 32J5, a
    counter in VASL's other window."""
    return [
        board_layout("0\t0\t32\tVER\t6.1\t", "1\t0\tr33\tVER\t6.1\t"),
        piece("1617000000010", 512, 690, "ge467S.gif", "4-6-7 1sq", layers=(BROKEN,)),
        piece("1617000000011", 512, 690, "pin.gif", "Pin"),
        stack("1617000000100", 512, 690, ["1617000000010", "1617000000011"]),
        piece("1617000000020", 3775, 819, "ge9-1.gif", "9-1", layers=(UNBROKEN,)),
        piece("1617000000021", 3775, 819, "geLMG.gif", "LMG"),
        stack("1617000000101", 3775, 819, ["1617000000020", "1617000000021"]),
        piece("1617000000030", 541, 706, "ru447S.gif", "4-4-7 1sq", layers=(UNBROKEN,)),
        piece("1617000000040", 737, 755, "ruT34.gif", "T-34/76 M41"),
        piece(CANARY_CONCEALED, 794, 851, "ru447S.gif", "4-4-7 1sq", layers=(UNBROKEN,)),
        piece(CANARY_TANK, 794, 851, "ruKV1.gif", "KV-1 M41"),
        piece("1617000000051", 794, 851, "ruConceal.gif", "?"),
        stack("1617000000102", 794, 851, [CANARY_CONCEALED, CANARY_TANK, "1617000000051"]),
        piece(CANARY_HIP, 850, 755, "ru8-1.gif", "8-1", layers=(UNBROKEN,), hide="2"),
        piece(SQUAD_ID, 906, 722, "ru447S.gif", "4-4-7 1sq", layers=(UNBROKEN,)),
        piece("1617000000061", 906, 722, "dm.gif", "DM"),
        piece("1617000000062", 906, 722, "cx.gif", "CX"),
        stack("1617000000103", 906, 722, [SQUAD_ID, "1617000000061", "1617000000062"]),
        piece("1617000000070", 40, 40, "ru447S.gif", "4-4-7 1sq", map_id="Counters"),
    ]


def two_boards(header: str = "vcsk", description: str = "Hexes and hexsides") -> bytes:
    text = saved_game(two_boards_commands())
    raw = {"vcsk": vcsk, "vobs": vobs, "plain": str.encode}[header](text)
    return archive(raw, description=description)


def log_file() -> bytes:
    """A .vlog: the two-board game, then LOG entries: the Russian squad moves from 32J5 to 32K4 (its DM
    and CX stay behind), the German squad rallies (its broken layer off), and a die typed in the chat."""
    move = "M/" + enc([SQUAD_ID, "Map0", "962", "626", "null", "Map0", "906", "722", "null", "player2"], "/")
    rally = "D/" + enc(["1617000000010", nest(["-1", enc(["Map0", "512", "690", "0"], ";")]),
                        nest(["1", enc(["Map0", "512", "690", "0"], ";")])], "/")
    chat = "CHAT<Ivan> Allied 3,4 (dice typed in VASL)"
    text = enc(["begin_save", *two_boards_commands(), "end_save", "LOG\t" + enc([move], ESC),
                "LOG\t" + enc([rally, chat], ESC)], ESC)
    return archive(vcsk(text), description="A log")
