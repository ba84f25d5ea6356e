"""The reliability tests drive the same end-to-end table as the cog tests (tests/cogs/conftest.py):
the real RefereeBot on a real SQLite file, connected to the loopback Discord."""

from tests.cogs.conftest import table  # noqa: F401  (re-exported as a fixture for this folder)
