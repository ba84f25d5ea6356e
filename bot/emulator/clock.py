"""Discord's clock, as the loopback Discord reckons an interaction's deadlines.

Real Discord gives a bot 3 seconds from an interaction's creation for the initial response
(after that: 404, code 10062 "Unknown interaction", and the token is dead), and 15 minutes for
followups and edits through the interaction's token (after that: 401, code 50027 "Invalid
Webhook Token"). The emulator keeps the same deadlines against this clock, so a test can make
the bot "slow" without waiting: ``advance`` moves Discord's time on (or ``FakeDiscord.lag``
makes the next answer arrive late), and ``time_scale`` runs it faster than the wall clock.
"""

from __future__ import annotations

import time
from typing import Callable

RESPONSE_DEADLINE = 3.0  # seconds from the interaction's creation to the initial response
TOKEN_LIFETIME = 15 * 60.0  # seconds the interaction's token takes followups and edits


class Clock:
    """Monotonic seconds: the wall clock times ``time_scale``, plus whatever a test advanced."""

    def __init__(self, time_scale: float = 1.0, source: Callable[[], float] = time.monotonic):
        if time_scale <= 0:
            raise ValueError("time_scale must be positive")
        self.time_scale = time_scale
        self._source = source
        self._start = source()
        self._offset = 0.0

    def now(self) -> float:
        return (self._source() - self._start) * self.time_scale + self._offset

    def advance(self, seconds: float) -> None:
        """Move Discord's time on by ``seconds`` at once (a test's "the bot took this long")."""
        if seconds < 0:
            raise ValueError("Discord's clock does not go back")
        self._offset += seconds
