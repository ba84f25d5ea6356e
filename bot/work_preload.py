"""Imported once by the server process that forks the long-work processes (bot/work.py): the
modules their jobs run, the host's own rulesets (REFEREE_RULESETS, entry points: as the bot
loads them) and every ruleset's tables, loaded and validated here, so each job forked from it
starts with them in memory instead of parsing the YAML again (about a second)."""

import bot.export  # noqa: F401
import bot.service  # noqa: F401  (the replay, verify and odds jobs)
import bot.stats  # noqa: F401
import bot.store.sqlite  # noqa: F401  (decodes the log rows a job is given)
import bot.work  # noqa: F401
from bot.core.api import load_tables
from bot.plugins import load_plugins

load_plugins()
load_tables()
bot.work.load_main()  # the program's main module (a script's imports), once for every job
