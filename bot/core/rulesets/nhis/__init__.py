"""No Honor in Surrender (Lock 'n Load Publishing).

The ruleset class lives in ``ruleset.py``. It is loaded lazily: ``bot.core.game`` imports this
package's ``models`` while it is being defined, and ``ruleset.py`` imports ``bot.core.game``.
"""


def __getattr__(name: str):
    if name == "RULESET":
        from .ruleset import RULESET

        return RULESET
    raise AttributeError(name)
