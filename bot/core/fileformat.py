"""Files of other programs a ruleset reads as a scenario, and writes a game back into (issue 31).

A ruleset declares its formats (``Ruleset.file_formats``): a name players type (``/scenario export
format:``), how a file of it is recognised by its content (not by its name), the most bytes it may
have, a reader that gives the scenario the file describes (``Imported``: the scenario, set up whole or
refused whole like a scenario file, and the list of what could not be mapped), and a writer of the
game's position. Code outside the ruleset reads these declarations and never names the format.
Pure: bytes in, bytes out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .game import Game
from .scenario import Scenario


@dataclass(frozen=True)
class Imported:
    """What a file of another program set up: the scenario (its sides' hidden parts sealed for their
    owners when loaded), ``not_mapped``, what the bot could not map, one line each with the file's name
    for it and where it stood (public: never a hidden piece), and ``notes`` for the loader."""

    scenario: Scenario
    not_mapped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Exported:
    """A game written in another program's format: the file's bytes, its file name's ending, and
    notes for the players (what the format could not carry)."""

    data: bytes
    extension: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileFormat:
    name: str  # what players type: /scenario export format:<name>
    title: str  # "VASL saved game (.vsav) or log (.vlog)"
    extensions: tuple[str, ...]  # the usual file name endings, for the help texts only
    max_bytes: int  # the most a file of it may have (checked before it is downloaded)
    detect: Callable[[bytes], bool]  # a file of this format, by its content
    read: Callable[[bytes], Imported]  # refused with a RulesError naming what is wrong, in one line
    write: Callable[[Game], Exported] | None = None  # the game's position as a file of the format
