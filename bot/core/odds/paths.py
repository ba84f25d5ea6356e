"""Depth-first exploration of a program that branches on weighted choices.

A program is replayed from the start once per path: ``Brancher.branch(options)`` returns the
option the current path takes and multiplies the path's probability by its weight. Options of
probability 0 are dropped, so impossible branches cost nothing. This is how the NHiS and CD
engines turn "one real resolution with the dice replaced by their outcome classes" into exact
odds without copying a running computation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any, TypeVar

T = TypeVar("T")
MAX_PATHS = 20_000


class Brancher:
    def __init__(self, choices: list[int]):
        self.choices = choices
        self.position = 0
        self.widths: list[int] = []
        self.probability = Fraction(1)

    def branch(self, options: list[tuple[Fraction, Any]]) -> Any:
        options = [(p, value) for p, value in options if p]
        if self.position == len(self.choices):
            self.choices.append(0)
        p, value = options[self.choices[self.position]]
        self.widths.append(len(options))
        self.position += 1
        self.probability *= p
        return value


def explore(program: Callable[[Any], T], *, limit: int = MAX_PATHS,
            brancher: Callable[[list[int]], Brancher] = Brancher) -> Iterator[tuple[Fraction, T]]:
    """(probability, result) of every path of ``program``; the probabilities sum to 1.
    ``brancher`` makes the object the program branches with (a Brancher subclass may carry state)."""
    from ..errors import IllegalOrder

    choices: list[int] = []
    count = 0
    while True:
        current = brancher(choices)
        result = program(current)
        count += 1
        if count > limit:
            raise IllegalOrder(f"this action has more than {limit} outcomes to tell apart: too many to "
                               f"preview exactly")
        yield current.probability, result
        del choices[len(current.widths):]
        while choices and choices[-1] + 1 >= current.widths[len(choices) - 1]:
            choices.pop()
        if not choices:
            return
        choices[-1] += 1
