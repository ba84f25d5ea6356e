"""The pure rules core.

Nothing in this package imports discord, sqlite3, aiosqlite or asyncio, and nothing in it
touches a global random number generator: dice are passed in (see ``dice.py``). A test
(tests/core/test_purity.py) enforces this.
"""
