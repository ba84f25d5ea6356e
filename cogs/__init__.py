"""Slash-command cogs: one module per command family, each ending with ``async def setup(bot)``.

Cogs are thin: parse the options, call the referee service (which loads the channel's game,
checks permissions, calls the rules core and saves state + log entry in one transaction), and
render the Outcome. Shared parsing and autocomplete live in ``_common.py``.
"""
