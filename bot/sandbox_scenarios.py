"""The sandbox's sample games: each ruleset's own (``Ruleset.samples``, in its package), found
through the registry, each the slash commands a game master would type.

``python -m bot sandbox --scenario NAME`` (or ``load NAME`` at the prompt) types these lines in
the sample's channel (its ruleset's name) through the real commands, so a sample game is set up
exactly as a group sets up theirs on Discord. A ruleset's own sample is named as the ruleset; its
others by the ruleset and their key (a ``file`` sample loads a scenario file of
data/<ruleset>/scenarios/ in one ``/scenario load``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

from bot.core.rulesets import rulesets


@dataclass(frozen=True)
class Scenario:
    title: str
    channel: str  # the ruleset's name: each ruleset's samples are set up in a channel of its own
    blurb: str
    lines: tuple[str, ...]  # typed by the game master, in order ("as alice": then by alice)
    next_steps: str  # what to try next, printed after the status


@cache
def scenarios() -> dict[str, Scenario]:
    """Every registered ruleset's samples: each ruleset's own first, in the registry's order, then
    their others (``asl``, ``nhis``, ``cd``, ``asl-file``...)."""
    found = [(bool(sample.key), sample.name(ruleset.name),
              Scenario(sample.title, ruleset.name, sample.blurb, sample.lines, sample.next_steps))
             for ruleset in rulesets() for sample in ruleset.samples]
    return {name: scenario for _, name, scenario in sorted(found, key=lambda f: f[0])}


V = TypeVar("V")


class ReadOnFirstUse(Mapping[str, V]):
    """The mapping ``read()`` returns (a cached function), read when first used: the samples come from
    the registry, and importing the sandbox imports no ruleset."""

    def __init__(self, read: Callable[[], dict[str, V]]) -> None:
        self._read = read

    def __getitem__(self, name: str) -> V:
        return self._read()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


SCENARIOS: Mapping[str, Scenario] = ReadOnFirstUse(scenarios)  # the samples by name


def sample_channels() -> tuple[str, ...]:
    """The channels the samples are set up in: one per ruleset that has samples, in the registry's order."""
    return tuple(dict.fromkeys(scenario.channel for scenario in scenarios().values()))
