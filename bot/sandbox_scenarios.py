"""The sandbox's sample games: each is the slash commands a game master would type.

The ``*-file`` samples load a scenario file of data/<ruleset>/scenarios/ (docs/scenarios.md) in one
command, ``/scenario load file:...``, as a group loads the file it shares; the others build a small
game command by command.

``python -m bot sandbox --scenario asl`` (or ``load asl`` at the prompt) types these lines in
the scenario's own channel through the real commands, so a sample game is set up exactly as a
group sets up theirs on Discord. Every counter comes from the ruleset's counter library in
data/ (``/unit types`` lists them); the positions are small made-up samples, not published
scenarios.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    title: str
    channel: str
    blurb: str
    lines: tuple[str, ...]  # typed by the game master, in order ("as alice": then by alice)
    next_steps: str  # what to try next, printed after the status


SCENARIOS: dict[str, Scenario] = {
    "asl": Scenario(
        title="Advanced Squad Leader: Guards Counterattack (sample)",
        channel="asl",
        blurb="alice plays the Germans, bob the Russians; the Germans' Rally Phase of turn 1",
        lines=(
            "/game new ruleset:asl sides:Germans, Russians scenario:Guards Counterattack (sample) "
            "options:open_seating=yes manual_dice=all",
            "as alice", "/game join side:Germans", "as bob", "/game join side:Russians", "as gm",
            "/location set location:C4 terrain:woods",
            "/unit add id:A1 side:Germans type:ger-467 location:B4",
            "/unit add id:A2 side:Germans type:ger-467 location:B4",
            "/unit add id:L1 side:Germans type:ger-8-1 location:B4",
            "/unit add id:MG1 side:Germans type:ger-lmg location:B4 stats:owner=A1",
            "/unit add id:R1 side:Russians type:rus-447 location:C4",
            "/unit add id:L2 side:Russians type:rus-8-1 location:C4",
            "/unit add id:R2 side:Russians type:rus-447 location:C5",
            # a Melee carried over from the turn before: Close Combat to try (A11)
            "/unit add id:A3 side:Germans type:ger-467 location:E5",
            "/unit add id:R3 side:Russians type:rus-447 location:E5",
        ),
        next_steps=("Try: as alice | /transfer weapon:MG1 to:A2 | /done | as bob | /done (the Russians' part of the "
                    "Rally Phase) | as alice | /fire firers:A1 L1 target:C4 (the map counts range 1; add "
                    "dice:2 3 ... to roll your own) | /done | /move units:A2 to:B5 | as gm | /game phase to:CCPh "
                    "(the game master jumps to the Close Combat Phase) | as alice | /close-combat attackers:A3 "
                    "targets:R3 | as bob | /close-combat attackers:R3 targets:A3 (the DEFENDER's declaration "
                    "resolves both attacks at once, A11)"),
    ),
    "nhis": Scenario(
        title="No Honor in Surrender: Hill 362 (sample)",
        channel="nhis",
        blurb="alice plays the US Marines, bob the Japanese; turn 1",
        lines=(
            "/game new ruleset:nhis sides:US Marines, Japanese scenario:Hill 362 (sample) "
            "options:open_seating=yes manual_dice=all",
            "as alice", "/game join side:US Marines", "as bob", "/game join side:Japanese", "as gm",
            "/location set location:0405 terrain:jungle",
            "/unit add id:M1 side:US Marines type:us-rifle-squad location:0303",
            "/unit add id:M2 side:US Marines type:us-30cal-mg location:0303",
            "/unit add id:L1 side:US Marines type:us-leader location:0303",
            "/unit add id:M3 side:US Marines type:us-rifle-squad location:0304",
            "/unit add id:J1 side:Japanese type:jp-rifle-squad location:0405",
            "/unit add id:J2 side:Japanese type:jp-rifle-squad location:0405",
        ),
        next_steps=("Try: as alice | /done (the Rally Phase: each side ends its part) | as bob | /done | as alice | "
                    "/fire firers:M1 M2 target:0405 (the map counts the range) | /fire firers:M3 target:0405 (refused: "
                    "the impulse activated hex 0303) | /done (the Japanese impulse: as bob ...)"),
    ),
    "cd": Scenario(
        title="Command Decision: Hedgerows (sample)",
        channel="cd",
        blurb="alice plays the Americans (company Able, battery Arty), bob the Germans (1Kp)",
        lines=(
            "/game new ruleset:cd sides:Americans, Germans scenario:Hedgerows (sample) "
            "options:open_seating=yes manual_dice=all",
            "as alice", "/game join side:Americans", "as bob", "/game join side:Germans", "as gm",
            "/location set location:hedge-1 terrain:open features:hedgerow",
            "/unit add id:1-A side:Americans type:us-rifle location:farm stats:company=Able",
            "/unit add id:1-B side:Americans type:us-rifle location:farm stats:company=Able",
            "/unit add id:RA1 side:Americans type:us-105mm-battery location:rear stats:company=Arty",
            "/unit add id:G1 side:Germans type:ger-rifle location:hedge-1 stats:company=1Kp",
            "/unit add id:G2 side:Germans type:ger-mg42 location:hedge-1 stats:company=1Kp",
        ),
        # the phase jump's initiative dice are given (Americans 8, Germans 3): with the bot's dice the
        # Germans were Side A one game in two, and the Americans' /fire below was refused as out of turn
        next_steps=("Try: as alice | /artillery response firer:RA1 dice:4 (organic artillery answers on 1-5; one "
                    "roll a turn) | /artillery fire firer:RA1 targets:G1 G2 (the hedgerow of hedge-1 gives medium "
                    "cover; RA1 fires one mission a phase: ROF 1) | /done (each side ends its part) | "
                    "as gm | /game phase to:GeneralFire dice:8 3 (the game master jumps to the General Fire Phase; "
                    "the Movement Phase's initiative on the way: the Americans' d10 8 against the Germans' 3 makes "
                    "them Side A) | as alice | /fire firers:1-A target:G1 band:short (Side A fires first, then "
                    "Side B; the hits take effect at the phase's end)"),
    ),
    "asl-file": Scenario(
        title="Advanced Squad Leader: Village Assault (sample scenario file, 44 counters)",
        channel="asl",
        blurb="one /scenario load; alice plays the Germans, bob the Russians",
        lines=("/scenario load file:asl/scenarios/village-assault.yaml",
               "as alice", "/game join side:Germans", "as bob", "/game join side:Russians", "as gm"),
        next_steps=("Try: /unit list location:D3 | /scenario export | /los from:D3 to:H2 | as alice | /done | as bob | "
                    "/done | as alice | /fire firers:G1 G2 GL1 GMG1 target:H2 (the map counts range 4; the line "
                    "crosses E3's building: click Fire anyway to roll) | /roll public dice:d6 purpose:sniper dr (what "
                    "the referee does not rule on) | /done ... to the end of the Close Combat Phase: G11's Pin "
                    "from the set-up comes off"),
    ),
    "nhis-file": Scenario(
        title="No Honor in Surrender: Hill 362 (sample scenario file)",
        channel="nhis",
        blurb="one /scenario load; alice plays the US Marines, bob the Japanese",
        lines=("/scenario load file:nhis/scenarios/hill-362.yaml",
               "as alice", "/game join side:US Marines", "as bob", "/game join side:Japanese", "as gm"),
        next_steps="Try: /unit list | /scenario export",
    ),
    "cd-file": Scenario(
        title="Command Decision: Hedgerows (sample scenario file)",
        channel="cd",
        blurb="one /scenario load; alice plays the Americans, bob the Germans",
        lines=("/scenario load file:cd/scenarios/hedgerows.yaml",
               "as alice", "/game join side:Americans", "as bob", "/game join side:Germans", "as gm",
               "/game options set:manual_dice=all"),  # the hint gives dice: allowed as the /game new samples do
        next_steps=("Try: as alice | /artillery response firer:RA1 dice:2 | /artillery fire firer:RA1 targets:G1 G2 "
                    "(the Germans are veteran, the side's quality; hedge-1's hedgerow gives medium cover) | /done "
                    "(as bob | /done) | /unit list | /scenario export"),
    ),
}
