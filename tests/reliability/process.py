"""The bot as a real process against a FakeDiscord in the test process: ``python -m
bot.emulator.run_bot``, which is ``python -m bot run`` with its REST calls and gateway pointed at
the fake by the two REFEREE_DISCORD_* variables (``python -m bot run`` itself ignores them). Its
log goes to a file per life so a test can look for ERROR lines after the run.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from bot.emulator import API_ENV, GATEWAY_ENV, FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


class BotProcess:
    def __init__(self, fake: FakeDiscord, database: Path, logs: Path, *, extra_env: dict[str, str] | None = None):
        self.fake = fake
        self.database = database
        self.logs = logs
        self.extra_env = extra_env or {}
        self.process: asyncio.subprocess.Process | None = None
        self.lives = 0

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "DISCORD_"))}
        env.update({
            "REFEREE_TOKEN": "emulator-token",
            "REFEREE_DATABASE": str(self.database),
            API_ENV: self.fake.api_url,
            GATEWAY_ENV: self.fake.gateway_url,
            "REFEREE_LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
        })
        env.update(self.extra_env)
        return env

    @property
    def log_files(self) -> list[Path]:
        return sorted(self.logs.glob("life-*.log"))

    async def start(self, timeout: float = 30.0, *, syncs: bool = True) -> None:
        """Start a new life and return once it is connected to the gateway with its commands synced
        (``syncs=False``: a shard other than 0, which leaves the syncing to shard 0)."""
        assert self.process is None or self.process.returncode is not None, "the bot is still running"
        self.lives += 1
        identifies, synced = self.fake.gateway.identifies, len(self.fake.syncs) - (0 if syncs else 1)
        log = open(self.logs / f"life-{self.lives:03d}.log", "wb")
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.emulator.run_bot", cwd=ROOT, env=self._env(),
                stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log)
        finally:
            log.close()  # the child holds its own descriptor
        deadline = asyncio.get_running_loop().time() + timeout
        while not (self.fake.gateway.identifies > identifies and len(self.fake.syncs) > synced
                   and self.fake.gateway.connected):
            if self.process.returncode is not None:
                raise AssertionError(f"the bot exited with {self.process.returncode} before it was ready: "
                                     f"{self.log_files[-1].read_text()[-2000:]}")
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"the bot was not ready within {timeout}s")
            await asyncio.sleep(0.01)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def wait_dead(self) -> None:
        if self.process is not None:
            await self.process.wait()

    async def kill(self) -> None:
        """SIGKILL: no clean-up of any kind runs in the bot (the harshest crash there is)."""
        if self.alive:
            self.process.send_signal(signal.SIGKILL)  # only the process this harness started
        await self.wait_dead()

    async def stop(self) -> int:
        """SIGTERM: the bot closes the gateway and the database cleanly."""
        if self.alive:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 20)
            except asyncio.TimeoutError:
                await self.kill()
        return self.process.returncode if self.process else 0

    def error_lines(self) -> list[str]:
        """Lines the bot logged at ERROR or above, and tracebacks, over all its lives."""
        found = []
        for path in self.log_files:
            for line in path.read_text(errors="replace").splitlines():
                if " ERROR " in line or " CRITICAL " in line or line.startswith("Traceback"):
                    found.append(f"{path.name}: {line}")
        return found
