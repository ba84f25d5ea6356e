"""Command Decision's sample games for the sandbox (what a sample is: bot/core/samples.py)."""

from __future__ import annotations

from ...samples import Sample

SAMPLES = (
    Sample(
        key="",
        title="Command Decision: Hedgerows (sample)",
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
    Sample(
        key="file",
        title="Command Decision: Hedgerows (sample scenario file)",
        blurb="one /scenario load; alice plays the Americans, bob the Germans",
        lines=("/scenario load file:cd/scenarios/hedgerows.yaml",
               "as alice", "/game join side:Americans", "as bob", "/game join side:Germans", "as gm",
               "/game options set:manual_dice=all"),  # the hint gives dice: allowed as the /game new samples do
        next_steps=("Try: as alice | /artillery response firer:RA1 dice:2 | /artillery fire firer:RA1 targets:G1 G2 "
                    "(the Germans are veteran, the side's quality; hedge-1's hedgerow gives medium cover) | /done "
                    "(as bob | /done) | /unit list | /scenario export"),
    ),
)
