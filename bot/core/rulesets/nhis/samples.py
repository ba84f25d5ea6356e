"""No Honor in Surrender's sample games for the sandbox (what a sample is: bot/core/samples.py)."""

from __future__ import annotations

from ...samples import Sample

SAMPLES = (
    Sample(
        key="",
        title="No Honor in Surrender: Hill 362 (sample)",
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
    Sample(
        key="file",
        title="No Honor in Surrender: Hill 362 (sample scenario file)",
        blurb="one /scenario load; alice plays the US Marines, bob the Japanese",
        lines=("/scenario load file:nhis/scenarios/hill-362.yaml",
               "as alice", "/game join side:US Marines", "as bob", "/game join side:Japanese", "as gm"),
        next_steps="Try: /unit list | /scenario export",
    ),
)
