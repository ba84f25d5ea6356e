"""What the PostgreSQL store checks of its server as it opens (``PostgresStore.open``), each refusal
one line naming the setting to change.

- Room for the pools: each bot process keeps up to REFEREE_DATABASE_POOL_MAX connections (a command
  in flight holds one, with its channel's advisory lock). The server takes ``max_connections`` less
  the slots it keeps for superusers (``superuser_reserved_connections``, and from PostgreSQL 16
  ``reserved_connections``). One process's pool that cannot fit there is refused at start-up;
  every process's together (the processes counted from the shard settings) that cannot fit is
  warned of in one line, since the count is this process's estimate.
- Session advisory locks need a session: a connection pooler that hands a client's statements to
  different server sessions (PgBouncer's ``pool_mode = transaction`` or ``statement``) lets a
  channel's lock go to a session the command no longer uses, and two processes would play one
  channel at once. The store asks for the server session's id, has another connection take a
  session in a transaction, and asks again: a different id (or a prepared statement lost between
  two statements, which such a pooler causes too) means statements are pooled, and the start is
  refused. A session pooler (``pool_mode = session``) passes.
"""

from __future__ import annotations

import logging
from typing import Any

from .base import DatabaseUnusable

try:  # the optional extra `postgres`
    import asyncpg
except ImportError:  # pragma: no cover - the SQLite-only install
    asyncpg = None

log = logging.getLogger(__name__)

_ROOM = ("SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int, "
         "coalesce(current_setting('reserved_connections', true), '0')::int")


async def room(conn: Any) -> tuple[int, int]:
    """(max_connections, the connections an ordinary user may open: less the reserved ones)."""
    most, superuser, reserved = await conn.fetchrow(_ROOM)
    return most, most - superuser - reserved


async def check_room(conn: Any, *, pool_max: int, processes: int, label: str) -> str | None:
    """Refuse a pool that cannot fit the server alone; return a one-line warning (also logged) when
    every process's together cannot, else None."""
    most, free = await room(conn)
    if pool_max > free:
        raise DatabaseUnusable(
            f"REFEREE_DATABASE_POOL_MAX {pool_max} is more connections than database {label} takes ({free}: "
            f"max_connections {most} less those reserved for superusers): lower REFEREE_DATABASE_POOL_MAX, or "
            "raise the server's max_connections")
    if pool_max * processes > free:
        warning = (f"{processes} bot processes with REFEREE_DATABASE_POOL_MAX {pool_max} may open "
                   f"{pool_max * processes} connections, more than database {label} takes ({free} of max_connections "
                   f"{most}): commands will be refused at busy moments; lower REFEREE_DATABASE_POOL_MAX to "
                   f"{max(1, free // processes)} or raise max_connections")
        log.warning("%s", warning)
        return warning
    return None


POOLED = ("database {label} is reached through a pooler that hands one connection's statements to different "
          "server sessions (PgBouncer's pool_mode = transaction or statement): the bot holds each channel with a "
          "session advisory lock, which such a pooler breaks. Connect straight to PostgreSQL, or set the "
          "pooler's pool_mode = session")


async def check_sessions(conn: Any, dsn: str, *, label: str) -> None:
    """Refuse a connection whose statements do not all run in one server session (a transaction-mode
    pooler in between): the session advisory locks would not hold."""
    other = None
    try:
        first = await conn.fetchval("SELECT pg_backend_pid()")
        other = await asyncpg.connect(dsn, statement_cache_size=0)
        async with other.transaction():  # a session held by another client: a pooler must hand ours another
            await other.fetchval("SELECT pg_backend_pid()")
            again = await conn.fetchval("SELECT pg_backend_pid()")
    except (asyncpg.InvalidSQLStatementNameError, asyncpg.DuplicatePreparedStatementError):
        raise DatabaseUnusable(POOLED.format(label=label)) from None  # a prepared statement lost between sessions
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        if "pooling mode" in str(exc):  # PgBouncer's statement mode: "transaction blocks not allowed ..."
            raise DatabaseUnusable(POOLED.format(label=label)) from None
        raise DatabaseUnusable(f"database {label} cannot be used ({type(exc).__name__}: {exc}): check the server "
                               "is running and the user may log in") from None
    finally:
        if other is not None:
            await other.close()
    if again != first:
        raise DatabaseUnusable(POOLED.format(label=label))
