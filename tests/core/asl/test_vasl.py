"""VASL's saved games and logs read into a scenario, and a game written back (issue 31).

The fixtures (tests/core/asl/vasl_fixtures.py, with their own encoder and hand-computed pixels) have the
structure as observed in saves written by VASSAL 3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures and
examples, not copied): the same header form with a key, the same compound of pieces, trait order and
escaping, the ``bd`` token as VASL writes it. The Pin, DM and CX marker pieces and the VOBS header are
built from the format as documented (no save at hand holds them). tests/core/asl/test_vasl_samples.py
reads real saves from a directory when one is given.
"""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml
from pydantic import ValidationError

from bot.core.rulesets import get_ruleset
from bot.core.data import data_path
from bot.core.rulesets.asl import vasl
from bot.core.scenario import Scenario, ScenarioBoard, build_game, scenario_of
from bot.record import state_hash
from tests.core.asl import vasl_fixtures as fx

VILLAGE = data_path("asl", "scenarios", "village-assault.yaml")
ESC = "\x1b"


def village():
    return build_game(Scenario.model_validate(yaml.safe_load(VILLAGE.read_text())), sequence=1)


def units_of(scenario: Scenario) -> dict[str, tuple]:
    return {u.id: (i, u.type, u.location, u.held_by, tuple(sorted(u.markers)))
            for i, side in enumerate(scenario.sides) for u in side.units}


# --- SequenceEncoder ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fields", [["A", "B,C"], ["a\\", "b"], ["'q'", ""], ["x,y,z", "'", "\\,"], [""],
                                    ["ends with a comma,"]])
def test_fields_split_back_as_they_were_joined(fields):
    assert vasl.split(vasl.join(fields, ","), ",") == fields
    assert vasl.split(fx.enc(fields, ","), ",") == fields  # the fixtures' own encoder agrees


def test_the_documented_example_and_nesting():
    assert vasl.split("A,B\\,C", ",") == ["A", "B,C"]  # {A,{B,C}}
    inner = fx.enc(["B", "C"], "\t")
    assert vasl.split(fx.enc(["A", inner], "\t"), "\t") == ["A", "B\tC"]  # each level escaped once more
    assert vasl._nested(fx.nest(["A", "B", "C", "D"])) == ["A", "B", "C", "D"]


def test_a_lone_backslash_at_the_end_is_a_malformed_escape():
    with pytest.raises(vasl.VaslRefused, match="malformed escape"):
        vasl.split("a;b\\", ";")


# --- headers -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("header", ["vcsk", "vobs", "plain"])
def test_each_header_gives_the_same_game(header):
    assert vasl.read(fx.two_boards(header)) == vasl.read(fx.two_boards("vcsk"))


def test_vcsk_and_vobs_decode_by_hand():
    assert vasl.deobfuscate(b"!VCSK01" + bytes(b ^ 1 for b in b"begin_save").hex().encode()) == "begin_save"
    assert vasl.deobfuscate(b"VOBS\x07" + bytes(b ^ 7 for b in "begin_save é".encode())) == "begin_save é"
    assert vasl.deobfuscate(vasl.obfuscate("begin_save x", 0x42)) == "begin_save x"


# --- the grid: hand-checked hex centres ---------------------------------------------------------------

GRID = vasl.boards().geomorphic


@pytest.mark.parametrize(("hex_id", "centre"), [
    ("A1", (0, 32)), ("B1", (56.24, 64.255)), ("B0", (56.24, -0.255)), ("C5", (112.48, 290.04)),
    ("D5", (168.72, 322.295)), ("A10", (0, 612.59)), ("B10", (56.24, 644.845)), ("GG10", (1799.68, 612.59)),
])
def test_hex_centres_and_names(hex_id, centre):
    column = vasl.column_index(hex_id.rstrip("0123456789"))
    row = int(hex_id.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    assert vasl.hex_centre(GRID, column, row) == pytest.approx(centre)
    assert vasl.hex_at(GRID, *centre) == ((column, row), None)
    # a few pixels off the centre is still the hex; the edge of the hex (half dx away) is the neighbour's
    assert vasl.hex_at(GRID, centre[0] + 6, centre[1] - 5)[0] == (column, row)


def test_an_alternate_grid_numbers_the_b_columns_one_higher():
    grid = GRID.model_copy(update={"alternate": True})
    assert vasl.hex_centre(grid, 1, 1) == pytest.approx((56.24, -0.255))  # B1 where B0 is on a board's usual grid
    assert vasl.hex_at(grid, 56.24, 64.255) == ((1, 2), None)
    assert vasl.hex_at(grid, 0, 32) == ((0, 1), None)  # A, C, .. unchanged
    assert not vasl.on_grid(grid, 1, 0) and vasl.on_grid(grid, 1, 11) and not vasl.on_grid(GRID, 1, 11)


def test_column_names_run_a_to_z_then_doubled_letters():
    assert [vasl.column_name(i) for i in (0, 25, 26, 27, 32)] == ["A", "Z", "AA", "BB", "GG"]
    assert [vasl.column_index(n) for n in ("A", "Z", "AA", "GG", "AB", "")] == [0, 25, 26, 32, None, None]


def test_a_hexside_at_the_tolerance_and_past_it():
    mid = (140.60, 306.1675)  # between C5 and D5
    tolerance = vasl.boards().hexside_tolerance
    assert vasl.hex_at(GRID, *mid) == ((2, 5), (3, 5))
    assert vasl.hex_at(GRID, mid[0] + tolerance - 0.01, mid[1])[1] == (3, 5)  # just inside
    assert vasl.hex_at(GRID, mid[0] + tolerance + 0.01, mid[1])[1] is None  # just past: a hex
    assert vasl.hex_at(GRID, mid[0] + tolerance + 0.01, mid[1])[0] == (3, 5)


@pytest.mark.parametrize(("pixel", "hexside"), [
    ((653, 706), "E5/F5"), ((709, 802), "F6/G7"), ((737, 722), "G5/G6"), ((596, 609), "D3/E4"),
    ((625, 593), "E3/E4"), ((653, 738), "E6/F5"),
])
def test_hexside_positions_where_vasl_placed_pieces_on_board_1(pixel, hexside):
    """Pixels read in a save written by VASSAL 3.2/VASL 6.5 (pieces VASL snapped to hexsides of board 1,
    laid out alone: "bd 0 0 01"): each lies between the two hexes named, within a pixel of their centres'
    midpoint, which checks the 400-pixel edge, dx, dy, A1's centre and the half-hex offset together."""
    layout = vasl.Layout(tuple(vasl.parse_boards("bd\t0\t0\t01\tVER\t6.1\t")))
    assert layout.locate(*pixel) == (hexside, None)


def test_a_layout_with_a_reversed_board_a_crop_and_a_zoom():
    layout = vasl.Layout((vasl.Board(0, 0, "32"), vasl.Board(1, 0, "33", reversed=True)))
    assert layout.locate(512, 690) == ("32C5", None)
    assert layout.locate(3775, 819) == ("33E4", None)  # reversed: 1800 - x, 645 - y
    assert layout.locate(541, 706) == ("32C5/D5", None)
    assert layout.locate(200, 150) == ("", None)  # in the edge margin: off the boards
    # one board, cropped from x 560 and zoomed 2: K3's centre (562.4, 161.02) is at (2.4, 161.02) * 2
    one = vasl.Layout((vasl.Board(0, 0, "5", crop=(560, 0, 600, 645), zoom=2.0),))
    assert one.locate(400 + 5, 400 + 322) == ("K3", None)
    # a board the bot has no grid for: its pieces, and those of the boards after it in its row
    odd = vasl.Layout((vasl.Board(0, 0, "RB"), vasl.Board(1, 0, "32")))
    assert odd.locate(500, 600)[1] == "on or after board RB, a map the bot has no grid for"
    assert odd.locate(200, 150) == ("", None)  # the margin is still off the boards


def test_the_board_layout_command():
    """ASLBoard's state: column, row, name, crop, VER, each overlay as OVR name hex hex, SSR, ZOOM."""
    [a, b] = vasl.parse_boards("bd\t0\t0\t32\t10\t0\t500\t645\tVER\t6.1\tOVR\tx3\tC5\tD5\tSSR\tNoRoads"
                               "\tZOOM\t1.5\tbd\t1\t0\tr33\tVER\t6.1\t")
    assert (a.name, a.crop, a.version, a.overlays, a.ssr, a.zoom) == ("32", (10, 0, 500, 645), "6.1",
                                                                     (("x3", "C5", "D5"),), "NoRoads", 1.5)
    assert (b.column, b.name, b.reversed) == (1, "33", True)
    assert a.size() == (750, 968)
    assert a.state() == "0\t0\t32\t10\t0\t500\t645\tVER\t6.1\tOVR\tx3\tC5\tD5\tSSR\tNoRoads\tZOOM\t1.5"
    assert b.state() == "1\t0\tr33\tVER\t6.1\t"


def test_boards_one_to_nine_are_named_with_a_leading_zero_as_vasl_writes_them():
    """A save of three boards in one column, all reversed, as seen in a VASL save (values our own)."""
    layout = vasl.parse_boards("bd\t0\t0\tr05\tVER\t6.3\tbd\t0\t1\tr02\tVER\t6.4\tbd\t0\t2\tr04\tVER\t6.1\t")
    assert [(b.id, b.name, b.column, b.row, b.reversed) for b in layout] == [
        ("5", "05", 0, 0, True), ("2", "02", 0, 1, True), ("4", "04", 0, 2, True)]
    assert [vasl.vasl_board_name(i) for i in ("2", "32", "00")] == ["02", "32", "00"]
    assert vasl.boards().grid("02") == GRID and vasl.boards().grid("00") is None
    # board 2 (the middle one) from y 1045 to 1690; reversed, its C5 is at 1800 - 112.48, 645 - 290.04
    assert vasl.Layout(tuple(layout)).locate(400 + 1688, 1045 + 355) == ("2C5", None)
    assert vasl.layout_text(layout) == ("5 (reversed; column 0, row 0), 2 (reversed; column 0, row 1), "
                                        "4 (reversed; column 0, row 2)")
    with pytest.raises(vasl.VaslRefused, match="two boards are laid out at column 0, row 0"):
        vasl.parse_boards("bd\t0\t0\t32\tbd\t0\t0\t33\t")


def test_the_data_files_forbid_unknown_keys():
    with pytest.raises(ValidationError):
        vasl.GridOverride.model_validate({"width": 900, "colums": 17})
    with pytest.raises(ValidationError):
        vasl.NamesFile.model_validate({**vasl.names().model_dump(), "sidez": {}})
    override = vasl.BoardsFile.model_validate({**vasl.boards().model_dump(), "boards": {"hb": {"width": 900}}})
    assert override.grid("hb").width == 900 and override.grid("hb").dx == GRID.dx
    assert vasl.boards().grid("32") == GRID and vasl.boards().grid("RB") is None and vasl.boards().grid("1b") is None


# --- a saved game as a scenario ------------------------------------------------------------------------


def test_two_boards_a_reversed_one_a_hexside_markers_and_a_leader_with_his_weapon():
    """Structure as observed in saves written by VASSAL 3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures,
    not copied): squads named by their names layer over another BasicPiece name ("4-6-8 Esq" showing
    "4-6-7 1sq"), leaders over "geLDR", the nation from the Concealment trait; the Pin, DM and CX pieces
    as assumed (no save at hand holds one)."""
    imported = vasl.read(fx.two_boards())
    scenario = imported.scenario
    assert [(s.name, s.nationality) for s in scenario.sides] == [("Germans", "german"), ("Russians", "russian")]
    assert units_of(scenario) == {
        "G1": (0, "ger-467", "32C5", None, ("broken", "pinned")),  # broken layer + Pin marker
        "GL1": (0, "ger-9-1", "33E4", None, ()),  # on the reversed board
        "GLMG1": (0, "ger-lmg", None, "GL1", ()),  # the leader's weapon
        "R1": (1, "rus-447", "32J5", None, ("cx", "dm")),
    }
    assert [loc.id for loc in scenario.locations] == ["32C5", "33E4", "32J5"]
    assert scenario.title == "Hexes and hexsides"
    assert imported.not_mapped == (
        "4-4-7 1sq in 32C5/D5: on a hexside: infantry stands in a hex",
        "T-34 M41 vca3 BU in 32G6: a vehicle: the bot referees infantry, leaders and support weapons")
    hidden = scenario.sides[1].hidden.text
    assert "- concealed: 4-4-7 (rus-447) in 32H7" in hidden and "- HIP: 8-1 (rus-8-1) in 32I6" in hidden
    assert "concealed, not mapped: KV-1 M41 vca3 BU in 32H7" in hidden and scenario.sides[0].hidden is None
    assert "1 piece in VASL's other windows (off the map) not read." in imported.notes
    assert [b.model_dump() for b in scenario.boards] == [{"id": "32", "x": 0, "y": 0, "reversed": False},
                                                         {"id": "33", "x": 1, "y": 0, "reversed": True}]
    game = build_game(scenario, sequence=1)  # sets up whole
    assert game.units["GLMG1"].owner == "GL1" and game.units["GLMG1"].location == "33E4"
    assert game.units["G1"].broken and game.units["G1"].pinned and game.units["R1"].dm and game.units["R1"].cx


def test_hidden_pieces_are_never_in_the_public_part():
    scenario = vasl.read(fx.two_boards()).scenario
    imported = vasl.read(fx.two_boards())
    public = scenario.model_dump_json(exclude={"sides": {"__all__": {"hidden"}}}) + "".join(imported.not_mapped) \
        + "".join(imported.notes)
    for canary in (fx.CANARY_CONCEALED, fx.CANARY_HIP, fx.CANARY_TANK, "KV-1", "32H7", "32I6", "8-1"):
        assert canary not in public
    assert all(canary not in scenario.sides[1].hidden.text for canary in
               (fx.CANARY_CONCEALED, fx.CANARY_HIP, fx.CANARY_TANK))  # VASSAL's ids: not even sealed


def test_a_log_is_read_to_its_end_and_its_chat_dice_are_not_used():
    imported = vasl.read(fx.log_file())
    units = units_of(imported.scenario)
    assert units["R1"] == (1, "rus-447", "32K4", None, ())  # moved away from its DM and CX
    assert units["G1"] == (0, "ger-467", "32C5", None, ("pinned",))  # rallied: its broken layer off
    assert "DM marker in 32J5, with no unit under it" in imported.not_mapped
    assert "The position is the log's end, after its 2 entries." in imported.notes
    assert ("Typed in VASL (chat, dice never used): *** (Rally DR) 3,1 *** <Ivan> [1 / 1 avg 4.00 (4.00)] (01.46)."
            in imported.notes)


def test_a_vehicle_is_listed_as_not_mapped_and_the_rest_loads():
    """Structure as observed in saves written by VASSAL 3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures,
    not copied): a vehicle with its BU/CE and VCA layers and turret, named "PzKw IVH vca3 BU"."""
    text = fx.saved_game([fx.board_layout("0\t0\t32\tVER\t6.1\t"),
                          fx.piece("1001", 512, 690, "ge467S.gif", "4-6-7 1sq"),
                          fx.vehicle("1002", 737, 755, "ge", "pzivh", "PzKw IVH")])
    imported = vasl.read(fx.archive(fx.vcsk(text)))
    assert imported.not_mapped == ("PzKw IVH vca3 BU in G6: a vehicle: the bot referees infantry, leaders and "
                                   "support weapons",)  # one board: short ids
    assert units_of(imported.scenario) == {"G1": (0, "ger-467", "C5", None, ())}


def test_a_crew_and_a_half_squad_with_the_same_numbers_are_told_apart():
    text = fx.saved_game([fx.board_layout("0\t0\t32\t"), fx.piece("a", 512, 690, "ru227C.gif", "2-2-7 Icr"),
                          fx.piece("b", 737, 755, "ru227H.gif", "2-2-7 1hs")])
    assert {u.type for u in vasl.read(fx.archive(fx.vcsk(text))).scenario.sides[1].units} == {"rus-crew", "rus-227"}


# --- hostile and damaged files ---------------------------------------------------------------------


def zip_of(entries: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buffer.getvalue()


DEEP = fx.saved_game([fx.board_layout("0\t0\t32\t"), "+/" + fx.enc(
    ["p", fx.nest(["emb2;"] * 130 + ["piece;;;a.gif;x"]), fx.nest(["1"] * 130 + ["Map0;1;2;0"])], "/")])

def _nested_commands(depth: int) -> str:
    text = fx.piece("7001", 512, 690, "ge467S.gif", "4-6-7 1sq")
    for _ in range(depth):
        text = fx.enc(["", text], fx.ESC)  # a compound command inside a compound, as VASL nests its save
    return fx.enc(["begin_save", text, fx.board_layout("0\t0\t32\tVER\t6.1\t"), "end_save"], fx.ESC)


HOSTILE = {
    "not a zip": (b"PK\x03\x04 not really", "it is not a ZIP archive"),
    "no savedGame": (zip_of({"other": b"x"}), "the archive has no savedGame"),
    "too big": (b"PK\x03\x04" + b"\0" * (vasl.MAX_FILE + 1), "at most 4,194,304"),
    "zip bomb": (zip_of({"savedGame": b"begin_save" + b"\0" * 3_000_000}), "a zip bomb?"),
    "nested archive": (zip_of({"savedGame": zip_of({"savedGame": b"begin_save"})}), "nested archives"),
    "unknown header": (zip_of({"savedGame": b"XYZZ1234"}), "starts with 'XYZZ1234', not a header VASSAL writes"),
    "bad hex": (zip_of({"savedGame": b"!VCSK01zz"}), "not hex digits"),
    "odd hex": (zip_of({"savedGame": b"!VCSK011"}), "odd number of hex digits"),
    "malformed escape": (fx.archive(fx.vcsk(fx.saved_game([fx.board_layout("0\t0\t32\t"), "+/p/piece;;;a.gif;x/"
                                                           "Map0;1;2;0\\"]))), "malformed escape"),
    "nesting": (fx.archive(fx.vcsk(DEEP)), "nests more than 128 traits"),
    "command nesting": (fx.archive(fx.vcsk(_nested_commands(40))), "commands nest more than 32 deep"),
    "cut short": (fx.archive(fx.vcsk("begin_save\x1bbd\t0\t0\t32\t")), "no end_save"),
    "another module": (fx.archive(fx.vcsk(fx.saved_game([])), module="Twilight Struggle"),
                       "a saved game of the VASSAL module 'Twilight Struggle', not of VASL"),
    "bad position": (fx.archive(fx.vcsk(fx.saved_game([fx.board_layout("0\t0\t32\t"),
                                                       "+/p/piece;;;a.gif;x/Map0;one;2;0"]))), "not a whole number"),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_or_damaged_file_is_refused_in_one_line(kind):
    data, words = HOSTILE[kind]
    with pytest.raises(vasl.VaslRefused) as refused:
        vasl.read(data)
    message = str(refused.value)
    assert message.startswith("VASL file: ") and words in message and "\n" not in message, message


@pytest.mark.parametrize(("size", "refused"), [(999, False), (1000, False), (1001, True)])
def test_the_unpacked_size_cap_at_below_and_above(monkeypatch, size, refused):
    monkeypatch.setattr(vasl, "MAX_SAVED_GAME", 1000)  # the cap's logic, at a size a test can build
    text = fx.saved_game([fx.board_layout("0\t0\t32\t")])
    data = zip_of({"savedGame": text.encode().ljust(size, b" ")}, zipfile.ZIP_STORED)
    if refused:
        with pytest.raises(vasl.VaslRefused, match="savedGame would unpack to 1,001 bytes; the most read is 1,000"):
            vasl.read(data)
    else:
        assert vasl.read(data).scenario.sides[0].units == []


@pytest.mark.parametrize(("depth", "refused"), [(31, False), (32, False), (33, True)])
def test_commands_nested_below_at_and_above_the_cap(depth, refused):
    data = fx.archive(fx.vcsk(_nested_commands(depth)))
    if refused:
        with pytest.raises(vasl.VaslRefused, match="commands nest more than 32 deep"):
            vasl.read(data)
    else:
        assert units_of(vasl.read(data).scenario) == {"G1": (0, "ger-467", "C5", None, ())}


@pytest.mark.parametrize(("traits", "refused"), [(127, False), (128, False), (129, True)])
def test_traits_of_one_piece_below_at_and_above_the_cap(traits, refused):
    """A VASL counter has 35 to 47 traits (seen in VASL saves); at most 128 are read."""
    piece = "+/" + fx.enc(["7002", fx.nest(["mark;x"] * traits + ["piece;K;D;ge/ge467S;4-6-7 1sq"]),
                           fx.nest(["1"] * traits + ["Main Map;512;690;0"])], "/")
    data = fx.archive(fx.vcsk(fx.saved_game([fx.board_layout("0\t0\t32\tVER\t6.1\t"), piece])))
    if refused:
        with pytest.raises(vasl.VaslRefused, match="nests more than 128 traits"):
            vasl.read(data)
    else:
        assert units_of(vasl.read(data).scenario) == {"G1": (0, "ger-467", "C5", None, ())}


def test_xml_entities_in_the_metadata_are_refused():
    data = zip_of({"savedGame": fx.vcsk(fx.saved_game([])),
                   "savedata": b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]><data>&a;</data>'})
    with pytest.raises(vasl.VaslRefused, match="declares XML entities"):
        vasl.read(data)


# --- a game written as a .vsav, and read back --------------------------------------------------------


def test_the_sample_scenario_exported_and_imported_loses_nothing():
    game = village()
    exported = vasl.write(game)
    assert exported.extension == ".vsav" and vasl.is_vasl(exported.data)
    with zipfile.ZipFile(io.BytesIO(exported.data)) as zf:
        assert zf.read("savedGame").startswith(b"!VCSK")  # what every VASSAL reads
    imported = vasl.read(exported.data)
    assert imported.not_mapped == ()
    original = scenario_of(game)
    assert units_of(imported.scenario) == units_of(original) and len(units_of(original)) == 44
    assert {loc.id for loc in imported.scenario.locations} == {loc.id for loc in original.locations}
    # what VASL does not carry (terrain, the scenario's numbers) set again: the same game, the same hash
    terrain = {loc.id: loc for loc in original.locations}
    again = imported.scenario.model_copy(update={
        "locations": [terrain[loc.id] for loc in imported.scenario.locations], "options": original.options,
        "turns": original.turns, "sides": [s.model_copy(update={"options": o.options})
                                          for s, o in zip(imported.scenario.sides, original.sides)]})
    rebuilt = build_game(again, sequence=1)
    rebuilt.locations = {k: rebuilt.locations[k] for k in game.locations}
    rebuilt.units = {k: rebuilt.units[k] for k in game.units}
    assert rebuilt == game and state_hash(rebuilt) == state_hash(game)


def test_a_two_board_game_round_trips_through_its_own_export():
    first = build_game(vasl.read(fx.two_boards()).scenario, sequence=1)
    second = vasl.read(vasl.write(first).data)
    assert units_of(second.scenario) == units_of(scenario_of(first))
    assert second.not_mapped == ()


def test_the_hexes_on_the_line_between_two_boards_keep_their_board():
    game = build_game(vasl.read(fx.two_boards()).scenario, sequence=1)
    game.units["G1"].location, game.units["R1"].location = "32GG5", "33A3"  # a board's GG is the next's A
    game.locations = {loc: get_ruleset(game.ruleset).new_location(id=loc) for loc in ("32GG5", "33A3", "33E4")}
    back = units_of(vasl.read(vasl.write(game).data).scenario)
    assert (back["G1"][2], back["R1"][2]) == ("32GG5", "33A3")


def test_a_piece_of_a_kind_the_bot_does_not_read_is_skipped_not_refused():
    deck = "+/" + fx.enc(["d1", "deck;Cards;true", "Map0;10;10;0"], "/")
    text = fx.saved_game([fx.board_layout("0\t0\t32\t"), deck, fx.piece("1001", 512, 690, "ge467S.gif", "4-6-7")])
    assert units_of(vasl.read(fx.archive(fx.vcsk(text))).scenario) == {"G1": (0, "ger-467", "C5", None, ())}


def test_a_weapon_no_one_holds_stays_unheld_in_its_hex():
    game = village()
    game.units["GMG1"].owner = None  # dropped in D3, where G1, G2 and GL1 stand
    game.units["GMG1"].location = "D3"
    back = units_of(vasl.read(vasl.write(game).data).scenario)
    assert back["GMG1"] == (0, "ger-mmg", "D3", None, ())


def test_what_a_vsav_cannot_hold_is_named():
    game = village()
    game.units["G1"].fp = 9  # numbers of its own
    game.units["R14"].location = None
    exported = vasl.write(game)
    assert "Numbers changed from the printed counter are not kept in VASL: G1." in exported.notes
    assert not any(n.startswith("State VASL") for n in exported.notes)
    game.units["GMG1"].malfunctioned = True  # written: the weapon's "malf +" layer, and read back
    game.units["G2"].fire_marker = "prep"
    again = vasl.write(game)
    assert "State VASL is not given (markers the bot does not write): G2 (fire marker)." in again.notes
    assert units_of(vasl.read(again.data).scenario)["GMG1"] == (0, "ger-mmg", None, "G1", ("malfunctioned",))
    assert units_of(vasl.read(exported.data).scenario)["R14"][2] is None  # off board: in the margin, read back


@pytest.mark.parametrize(("count", "refused"), [(400, False), (401, True)])
def test_the_unit_cap_at_and_above(count, refused):
    """A game holds at most 400 units (bot/core/setup.py): more counters are refused in one line, not a
    validation error; the stacking limit aside (one squad per hex of boards side by side)."""
    layout = [fx.board_layout(*(f"{i}\t0\t{i + 1}\t" for i in range(3)))]
    pieces = []
    for i in range(count):  # boards 1, 2, 3 side by side: each hex of the columns A, C, .. EE (a board's GG
        board, rest = divmod(i, 160)  # is the next one's A: the same hex)
        column, row = divmod(rest, 10)
        x = 400 + board * 1800 + round(column * 2 * 56.24)
        y = 400 + round(32 + row * 64.51)
        pieces.append(fx.piece(str(10**12 + i), x, y, "ge467S.gif", "4-6-7 1sq"))
    data = fx.archive(fx.vcsk(fx.saved_game(layout + pieces)))
    if refused:
        with pytest.raises(vasl.VaslRefused, match="it holds 401 counters the bot maps; a game has at most 400"):
            vasl.read(data)
    else:
        scenario = vasl.read(data).scenario
        assert len(scenario.sides[0].units) == 400 and len(build_game(scenario, sequence=1).units) == 400
        assert all(u.location for u in scenario.sides[0].units) and len(scenario.locations) == 400


def test_overlays_and_ssr_changes_are_named_not_applied():
    """The bot has no overlay or SSR terrain data: each is named, where it lies, with what to set."""
    text = fx.saved_game([fx.board_layout("0\t0\t32\tVER\t6.1\tOVR\tx3\tC5\tD5\tSSR\tNoWoods\t"),
                          fx.piece("1001", 512, 690, "ge467S.gif", "4-6-7 1sq")])
    notes = vasl.read(fx.archive(fx.vcsk(text))).notes
    assert notes[:2] == ("Boards: 32.", "Not applied: board 32: overlay x3 at 32C5-D5, SSR terrain changes NoWoods. "
                         "The bot has no overlay or SSR terrain data: the hexes under each overlay and those each SSR "
                         "changes start as open ground like the rest; set their terrain with /location set.")


def test_a_one_board_game_keeps_its_board_for_the_way_back():
    text = fx.saved_game([fx.board_layout("0\t0\t32\t"), fx.piece("1001", 512, 690, "ge467S.gif", "4-6-7")])
    scenario = vasl.read(fx.archive(fx.vcsk(text))).scenario
    assert scenario.options == {"vasl_board": 32} and units_of(scenario)["G1"][2] == "C5"
    game = build_game(scenario, sequence=1)
    exported = vasl.write(game)
    assert exported.notes[0].startswith("Boards: 32;")
    assert vasl.read(exported.data).scenario == scenario  # board 32 again, C5 again
    assert vasl.write(village()).notes[0].startswith("Boards: 1;")  # none given: board 1
    assert "bd\t0\t0\t01\tVER\t0.0\t" in saved_text(vasl.write(village()).data)  # as VASL names board 1


def saved_text(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return vasl.deobfuscate(zf.read("savedGame"))


def test_a_game_of_several_boards_is_written_with_its_layout_and_reads_back_to_the_same_locations():
    """Three boards in one column, the middle one reversed (a scenario's boards:), every hex of each
    written at its centre and read back as the same Location."""
    scenario = vasl.read(fx.two_boards()).scenario
    scenario = scenario.model_copy(update={"boards": [
        ScenarioBoard(id="5", x=0, y=0), ScenarioBoard(id="2", x=0, y=1, reversed=True),
        ScenarioBoard(id="32", x=0, y=2)], "locations": [], "sides": [
            side.model_copy(update={"units": [], "hidden": None}) for side in scenario.sides]})
    game = build_game(scenario, sequence=1)
    exported = vasl.write(game)
    text = saved_text(exported.data)
    assert "bd\t0\t0\t05\tVER\t0.0\tbd\t0\t1\tr02\tVER\t0.0\tbd\t0\t2\t32\tVER\t0.0\t" in text
    assert exported.notes[0].startswith("Boards: 5 (column 0, row 0), 2 (reversed; column 0, row 1), "
                                        "32 (column 0, row 2);")
    layout = vasl.Layout(tuple(vasl.parse_boards("bd\t" + text.split("bd\t", 1)[1].split(ESC)[0])))
    for index, board in enumerate(layout.boards):
        for column in range(33):
            for row in range(0 if column % 2 else 1, 11):
                x, y = layout.centre(index, column, row)
                assert layout.locate(x, y) == (f"{board.id}{vasl.column_name(column)}{row}", None), (board.id, x, y)
    # units too: a squad in each board's C5 comes back in the same Location, on its board
    game.units = {}
    for i, loc in enumerate(("5C5", "2C5", "32C5")):
        game.locations[loc] = get_ruleset(game.ruleset).new_location(id=loc)
        unit = build_game(vasl.read(fx.two_boards()).scenario, sequence=1).units["G1"]
        game.units[f"G{i}"] = unit.model_copy(update={"id": f"G{i}", "location": loc, "broken": False,
                                                      "pinned": False})
    back = vasl.read(vasl.write(game).data).scenario
    assert [(u.id, u.location) for u in back.sides[0].units] == [("G0", "5C5"), ("G1", "2C5"), ("G2", "32C5")]
    assert back.boards == scenario.boards


def test_a_name_from_the_file_is_shown_on_one_line():
    text = fx.saved_game([fx.board_layout("0\t0\t32\t"), fx.piece("1002", 737, 755, "ge.gif", "Pz\nIV\x07  H\r\n")])
    assert vasl.read(fx.archive(fx.vcsk(text))).not_mapped == (
        "Pz IV H in G6: not an infantry unit, leader or support weapon the counter library knows",)


# --- what real saves hold (structure as observed in saves written by VASSAL 3.x/VASL 6.x,
# pacman-ghost/vasl-templates fixtures, not copied) ------------------------------------------------------


def read_text(commands: list[str]) -> vasl.Imported:
    return vasl.read(fx.archive(fx.vcsk(fx.saved_game(commands))))


def test_concealed_by_its_trait_hip_by_its_trait_and_the_player_never_shown():
    """Structure as observed in saves written by VASSAL 3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures,
    not copied): a unit concealed by its ``conceal;`` trait (state "player;|0") with no "?" over it, a
    weapon hidden by its ``hide;`` trait (state: the player), a squad whose traits are off ("null")."""
    imported = read_text([fx.board_layout("0\t0\t32\tVER\t6.1\t"),
                          fx.piece("2001", 512, 690, "ru447S.gif", "4-4-7 1sq", basic="4-5-8 Esq", level=2,
                                   concealed="secretplayer"),
                          fx.weapon("2002", 737, 755, "ru", "MMG", hide="secretplayer"),
                          fx.piece("2003", 906, 722, "ru447S.gif", "4-4-7 1sq", basic="4-5-8 Esq", level=2)])
    russians = imported.scenario.sides[1]
    assert [(u.id, u.type, u.location) for u in russians.units] == [("R1", "rus-447", "J5")]
    assert russians.hidden.text.splitlines()[1:] == ["- concealed: 4-4-7 (rus-447) in C5", "- HIP: MMG (rus-mmg) in G6"]
    public = imported.scenario.model_dump_json(exclude={"sides": {"__all__": {"hidden"}}}) + str(imported.notes)
    assert "secretplayer" not in public + russians.hidden.text and "C5" not in public and "G6" not in public


def test_a_weapon_malfunctioned_and_one_dismantled():
    """Structure as observed in saves written by VASSAL 3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures,
    not copied): a support weapon's "malf +" layer sets its flag; "dm +" (dismantled, "dm HMG") is named."""
    imported = read_text([fx.board_layout("0\t0\t32\tVER\t6.1\t"),
                          fx.weapon("3001", 512, 690, "ge", "LMG", malf=True),
                          fx.weapon("3002", 737, 755, "ge", "HMG", dm=True)])
    assert units_of(imported.scenario) == {"GLMG1": (0, "ger-lmg", "C5", None, ("malfunctioned",)),
                                           "GHMG1": (0, "ger-hmg", "G6", None, ())}
    assert "Weapon state VASL shows that the bot does not keep: GHMG1 (dismantled)." in imported.notes


def test_a_leader_whose_name_has_an_escaped_plus_and_a_nation_from_the_concealment_trait():
    """Structure as observed in saves written by VASSAL 3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures,
    not copied): the leader "6+1" written "6\\+1" in his names layer over the BasicPiece "ruLDR"; a
    counter of a nation with no counters in the library ("ja") is named with its nation."""
    imported = read_text([fx.board_layout("0\t0\t32\tVER\t6.1\t"),
                          fx.piece("4001", 512, 690, "ruL61.gif", "6+1", basic="ruLDR"),
                          fx.piece("4002", 737, 755, "ja447S.gif", "4-4-7 1sq")])
    assert units_of(imported.scenario) == {"RL1": (1, "rus-6+1", "C5", None, ())}
    assert imported.not_mapped == ("4-4-7 1sq in G6: its nation 'ja' has no counters in the library",)


def test_the_main_map_of_vasl_6_4_map0_game_aids_and_the_margin():
    """Structure as observed in saves written by VASSAL 3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures,
    not copied): VASL 6.4 wrote its main map "Map0"; game aids (``mark;DBCounterType`` global) are named
    once; a counter in the 400-pixel margin (where set-ups keep them) is off board."""
    imported = read_text([fx.board_layout("0\t0\t02\tVER\t6.4\t"),
                          fx.piece("5001", 512, 690, "ge467S.gif", "4-6-7 1sq", map_id="Map0"),
                          fx.piece("5002", 150, 200, "ge467S.gif", "4-6-7 1sq"),
                          fx.aid("5003", 100, 100, "Wind"), fx.aid("5004", 120, 100, "Wind"),
                          fx.aid("5005", 653, 706, "Blue perimeter")])
    assert units_of(imported.scenario) == {"G1": (0, "ger-467", "C5", None, ()), "G2": (0, "ger-467", None, None, ())}
    assert imported.scenario.options == {"vasl_board": 2} and imported.scenario.boards == []
    assert "Game aids not read (no counter of either side): Wind x2, Blue perimeter." in imported.notes
    assert imported.not_mapped == ()


def test_a_save_with_no_board_laid_out_reads_its_counters_off_board():
    """Structure as observed in saves written by VASSAL 3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures,
    not copied): "bd" with no board (a set-up before its boards are chosen)."""
    imported = read_text([fx.piece("6001", 88, 178, "ge467S.gif", "4-6-7 1sq")])
    assert units_of(imported.scenario) == {"G1": (0, "ger-467", None, None, ())}
    assert imported.notes[0].startswith("VASL laid out no board in this file: every counter is read off board")
    assert build_game(imported.scenario, sequence=1).units["G1"].location is None


def test_the_export_writes_pieces_as_vasl_saves_hold_them():
    """Structure as observed in saves written by VASSAL 3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures,
    not copied): the pieces in one compound command after an empty one, on "Main Map", each with its
    counter type, HIP and Concealment traits (off), its broken layer and its names layer over a
    BasicPiece with no image; a weapon with its "malf +" layer over its own image."""
    game = village()
    text = saved_text(vasl.write(game).data)
    commands = vasl.split(text, ESC)
    assert commands[:2] == ["begin_save", ""] and commands[-1] == "end_save" and commands[-2].startswith("bd\t0\t0\t01")
    pieces = vasl.split(commands[2], ESC)
    assert pieces[0] == "" and all(p.startswith("+/") for p in pieces[1:])
    by_id = {vasl.split(p[2:], "/")[0]: vasl.split(p[2:], "/") for p in pieces[1:]}
    squad = vasl.make_piece(*by_id["G1"])
    assert [t.kind for t in squad.traits] == ["mark;", "hide;", "conceal;", "emb2;", "emb2;"]
    assert [t.state for t in squad.traits] == ["unit", "null", "null;", "-1", "1"]
    assert (squad.map, squad.basic_name, squad.name(), squad.nations()[0]) == (
        "Main Map", "4-6-7 1sq", "4-6-7 1sq", "ge")
    weapon = vasl.make_piece(*by_id["GMG1"])
    assert [t.kind for t in weapon.traits] == ["mark;", "hide;", "conceal;", "emb2;"] and weapon.image == "geMMG"
