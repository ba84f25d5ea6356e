"""A sample game a ruleset offers the sandbox (``Ruleset.samples``): the slash commands a game master
types to set it up, and what to try next. Each ruleset keeps its own in its package; the sandbox
(bot/sandbox_scenarios.py) finds them through the registry and sets each one up in the ruleset's
own channel, named by the ruleset (``asl``) or the ruleset and the sample's key (``asl-file``):
``python -m bot sandbox --scenario NAME``, or ``load NAME`` at its prompt. The ``file`` sample loads a
scenario file of data/<ruleset>/scenarios/ in one ``/scenario load``. Every counter comes from the
counter library in data/; the positions are small made-up samples."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    key: str  # "": the ruleset's own sample, named as the ruleset; else named "<ruleset>-<key>"
    title: str
    blurb: str  # who plays what, shown as it is set up
    lines: tuple[str, ...]  # typed by the game master, in order ("as alice": then by alice)
    next_steps: str  # what to try next, printed after the status

    def name(self, ruleset: str) -> str:
        return f"{ruleset}-{self.key}" if self.key else ruleset
