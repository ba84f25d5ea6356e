"""The odds through the bot's other layers: Referee.preview on a real SQLite store, the rules
interface's --preview flag through bot.cli.main, and render.odds_embed within Discord's limits."""

import io
import json
from fractions import Fraction

import pytest

from bot.cli import main
from bot.core.errors import IllegalOrder
from bot.core.odds import OddsReport, preview
from bot.render import EMBED_TOTAL_MAX, FIELD_VALUE_MAX, FIELDS_MAX, odds_embed, percent
from bot.service import NotAllowed, Referee
from tests.store.helpers import (
    CHANNEL,
    GERMAN,
    GM,
    RUSSIAN,
    STRANGER,
    seated_asl_game,
)

from .conftest import standard_game

# --- Referee.preview (the store and counter fixtures: tests/conftest.py) ----------------------


async def _entries(store) -> int:
    """Every log entry of every game in the database (SQLite or PostgreSQL)."""
    return sum([len([entry async for entry in store.iter_entries(game_id)]) for game_id in await store.game_ids()])


async def test_preview_gives_exact_odds_rolls_nothing_and_logs_nothing(store, counter):
    referee = Referee(store, dice=counter)
    await seated_asl_game(referee)
    before = await referee.log(CHANNEL)
    rows = await _entries(store)
    drawn = counter.drawn
    report = await referee.preview(CHANNEL, RUSSIAN, {"action": "morale", "unit": "R1", "check": "NMC"})
    assert report.units[0].states["unharmed"].p == Fraction(21, 36)  # 4-6-7: morale 7 (A10.1)
    assert counter.drawn == drawn
    assert (await referee.log(CHANNEL)).total == before.total == 5
    assert await _entries(store) == rows  # not a row written to the database
    assert (await referee.game(CHANNEL)).units["R1"].broken is False


async def test_preview_checks_permission_like_the_order_itself(store, counter):
    referee = Referee(store, dice=counter)
    await seated_asl_game(referee)
    with pytest.raises(NotAllowed):
        await referee.preview(CHANNEL, GERMAN, {"action": "morale", "unit": "R1", "check": "NMC"})
    with pytest.raises(NotAllowed):
        await referee.preview(CHANNEL, STRANGER, {"action": "morale", "unit": "A1", "check": "NMC"})
    report = await referee.preview(CHANNEL, GM, {"action": "morale", "unit": "A1", "check": "PTC"})
    assert report.results["fails"].p == Fraction(15, 36)  # PTC: fails on 8 or more, pinned (A7.8)


async def test_preview_refuses_an_illegal_order_with_the_rules_message(store, counter):
    referee = Referee(store, dice=counter)
    await seated_asl_game(referee)
    with pytest.raises(IllegalOrder) as refused:  # the sequence of play first: the Germans rally now
        await referee.preview(CHANNEL, RUSSIAN, {"action": "rally", "unit": "R1"})
    assert str(refused.value).startswith("it is the Rally Phase, ATTACKER's part, Germans to act: Russians may "
                                         "not rally now (A3)")
    await referee.act(CHANNEL, GERMAN, {"action": "done", "side": 0}, command="/done")
    with pytest.raises(IllegalOrder) as refused:  # then the rally's own rule
        await referee.preview(CHANNEL, RUSSIAN, {"action": "rally", "unit": "R1"})
    assert str(refused.value) == "4-6-7 R1 is not broken: only broken units rally (A10.6)"


# --- python -m bot rules --preview ---------------------------------------------------------


def _cli(request: dict, *flags: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["rules", *flags], stdin=io.StringIO(json.dumps(request)), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def _fire_request() -> dict:
    game, order = standard_game()
    return {"ruleset": "asl", "game": game.model_dump(mode="json"), "order": order}


def test_rules_preview_writes_the_odds_report_as_json_fractions():
    code, out, err = _cli(_fire_request(), "--preview")
    assert code == 0, err
    report = json.loads(out)
    game, order = standard_game()
    assert report == json.loads(preview(game, order).model_dump_json())
    assert OddsReport.model_validate_json(out) == preview(game, order)  # the JSON reads back exactly
    assert report["results"]["4KIA"] == {"p": "1/36", "percent": 2.7778}
    assert sum(Fraction(c["p"]) for c in report["results"].values()) == 1
    for unit in report["units"]:
        assert sum(Fraction(c["p"]) for c in unit["states"].values()) == 1


def test_rules_preview_refuses_dice_and_illegal_orders_with_exit_2():
    request = _fire_request()
    code, out, err = _cli({**request, "dice": [1, 1]}, "--preview")
    assert (code, out) == (2, "") and "rolls no dice" in err
    code, out, err = _cli({**request, "order": {**request["order"], "firers": ["R0"]}}, "--preview")
    assert (code, out) == (2, "") and err.startswith("illegal order:")


# --- render.odds_embed -----------------------------------------------------------------------


def test_odds_embed_shows_results_end_states_and_at_least_one_breaks():
    game, order = standard_game()
    (embed,) = odds_embed(preview(game, order), game)
    data = embed.to_dict()
    assert data["title"] == "Odds: 40 FP (IFT 36+) vs B1, DRM +1"
    fields = {f["name"]: f["value"] for f in data["fields"]}
    assert fields["Results"].startswith("4KIA 2.8% · 3KIA 5.6% · 2KIA 8.3% · 1KIA 11.1% · K/4 13.9%")
    assert fields["End state of each unit"].splitlines()[3] == \
        "**8-1 RL**: elim 22.6% · broken 56.3% · pinned 7.8% · unharmed 13.3%"
    assert fields["Summary"].splitlines()[0] == "At least one unit breaks: 93.2%"
    assert "MMG MG: malfunctions 2.8% · keeps ROF 50.0%" in fields["Summary"]


def test_odds_embed_of_a_huge_stack_stays_within_discord_limits_and_escapes_names():
    from tests.core.asl.conftest import AslBuilder

    b = AslBuilder(phase="PFPh").hex("A1").hex("B5", "woods").squad("G1", 0, "A1")
    for i in range(60):
        b.squad(f"R{i}_*@everyone*_" + "x" * 8, 1, "B5", name="4-4-7 **bold**")
    game = b.game
    report = preview(game, {"action": "fire", "firers": ["G1"], "target": "B5", "range": 2})
    embeds = odds_embed(report, game)
    assert len(embeds) > 1
    for embed in embeds:
        assert len(embed) <= EMBED_TOTAL_MAX and len(embed.fields) <= FIELDS_MAX
        assert all(len(f.value) <= FIELD_VALUE_MAX for f in embed.fields)
    text = "\n".join(f.value for e in embeds for f in e.fields)
    assert "@everyone" not in text.replace("@\u200beveryone", "") and "\\*\\*bold\\*\\*" in text
    assert text.count("4-4-7") == 60


def test_percentages_never_round_a_possibility_away():
    assert [percent(Fraction(0)), percent(Fraction(1, 10_000)), percent(Fraction(1, 3)),
            percent(Fraction(9_999, 10_000)), percent(Fraction(1))] == ["0%", "<0.1%", "33.3%", ">99.9%", "100%"]
