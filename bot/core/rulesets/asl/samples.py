"""Advanced Squad Leader's sample games for the sandbox (what a sample is: bot/core/samples.py)."""

from __future__ import annotations

from ...samples import Sample

SAMPLES = (
    Sample(
        key="",
        title="Advanced Squad Leader: Guards Counterattack (sample)",
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
    Sample(
        key="file",
        title="Advanced Squad Leader: Village Assault (sample scenario file, 44 counters)",
        blurb="one /scenario load; alice plays the Germans, bob the Russians",
        lines=("/scenario load file:asl/scenarios/village-assault.yaml",
               "as alice", "/game join side:Germans", "as bob", "/game join side:Russians", "as gm"),
        next_steps=("Try: /unit list location:D3 | /scenario export | /los from:D3 to:H2 | as alice | /done | as bob | "
                    "/done | as alice | /fire firers:G1 G2 GL1 GMG1 target:H2 (the map counts range 4; the line "
                    "crosses E3's building: click Fire anyway to roll) | /roll public dice:d6 purpose:sniper dr (what "
                    "the referee does not rule on) | /done ... to the end of the Close Combat Phase: G11's Pin "
                    "from the set-up comes off"),
    ),
)
