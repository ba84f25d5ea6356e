"""A throw-away PostgreSQL server for the tests: initdb + pg_ctl on a Unix socket in a temporary
folder, nothing listening on TCP, removed afterwards.

One server serves a whole test session (``tests/conftest.py``: the ``pg_server`` session fixture);
each test gets a schema of its own (``PgServer.fresh_dsn``): the DSN names the schema in its
``search_path`` (asyncpg passes unknown query parameters on as server settings), so a store opened
on it creates its tables there and sees no other test's.

PostgreSQL refuses to run as root. The tests run as root on the CI machine, so when this process
is root the server runs as an unprivileged user (``postgres``, made by the Debian package), and
its folder belongs to that user; the socket folder lets anyone connect. Outside root the server
runs as whoever runs the tests.

Where the binaries are: ``$REFEREE_PG_BINDIR``, else the newest ``/usr/lib/postgresql/*/bin``
(Debian, Ubuntu), else ``initdb`` on the PATH. ``.ci/run`` installs the Debian package when none is
found. When none is (a developer's machine without PostgreSQL), the PostgreSQL tests are skipped,
saying why, except under ``REFEREE_CI=1`` (set by ``.ci/run``): there a missing server fails them.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

UNPRIVILEGED_USER = "postgres"
START_TIMEOUT = 60  # seconds pg_ctl waits for the server to accept connections
_schemas = itertools.count(1)


class PgUnavailable(Exception):
    """No PostgreSQL server can be started here; the message says why and what to install."""


def find_bindir() -> Path:
    """The folder holding initdb, pg_ctl and postgres."""
    if os.environ.get("REFEREE_PG_BINDIR"):
        found = Path(os.environ["REFEREE_PG_BINDIR"])
        if (found / "initdb").exists():
            return found
        raise PgUnavailable(f"REFEREE_PG_BINDIR={found} holds no initdb")

    def version(path: Path) -> tuple[int, ...]:
        try:
            return tuple(int(part) for part in path.parent.name.split("."))
        except ValueError:
            return (0,)

    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: version(p.parent))
    if candidates:
        return candidates[-1].parent
    if which := shutil.which("initdb"):
        return Path(which).parent
    raise PgUnavailable("PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin or on the "
                        "PATH): `apt-get install postgresql` (or set REFEREE_PG_BINDIR) to run these tests")


def _run_as() -> tuple[str | None, int | None, int | None]:
    """(user name, uid, gid) to run the server as: an unprivileged user when we are root."""
    if os.geteuid() != 0:
        return None, None, None
    try:
        entry = pwd.getpwnam(UNPRIVILEGED_USER)
    except KeyError:
        raise PgUnavailable(f"running as root and there is no user {UNPRIVILEGED_USER!r} to run PostgreSQL as "
                            "(PostgreSQL refuses root): install the postgresql package, which makes it") from None
    return entry.pw_name, entry.pw_uid, entry.pw_gid


@dataclass
class PgServer:
    """A running server: ``dsn`` reaches its database ``referee`` as the superuser ``referee``."""

    root: Path
    bindir: Path
    user: str | None
    options: str = ""  # the postgres options it was started with (pg_ctl -o)
    socket_dir: Path = field(init=False)
    data_dir: Path = field(init=False)

    def __post_init__(self) -> None:
        self.socket_dir = self.root / "socket"
        self.data_dir = self.root / "data"

    @property
    def dsn(self) -> str:
        return f"postgresql://referee@/referee?host={self.socket_dir}"

    def fresh_dsn(self) -> str:
        """A DSN whose tables live in a new, empty schema of their own (created here)."""
        schema = f"t{os.getpid()}_{next(_schemas)}"
        self.psql(f"CREATE SCHEMA {schema}")
        return f"{self.dsn}&search_path={schema}"

    def psql(self, sql: str) -> str:
        """Run one SQL statement with psql (for the fixtures, not for the tests' assertions)."""
        result = subprocess.run([str(self.bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At",
                                 "-h", str(self.socket_dir), "-U", "referee", "-d", "referee", "-c", sql],
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"psql {sql!r}: {result.stderr.strip()}")
        return result.stdout

    def restart(self, mode: str) -> None:
        """``pg_ctl restart -m fast`` (every session told to end, then a clean shut-down) or ``-m
        immediate`` (every server process killed at once, crash recovery at the start): the
        database going away under a running bot, and back. Returns once it accepts connections;
        its settings are the first start's (pg_ctl reads them from postmaster.opts)."""
        if mode not in ("fast", "immediate"):
            raise ValueError(f"pg_ctl restart takes -m fast or -m immediate here, not {mode!r}")
        _as_user(self.user, [str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-l", str(self.root / "server.log"),
                             "-m", mode, "-w", "-t", str(START_TIMEOUT), "restart"])

    def down(self) -> None:
        """Stop the server (``-m fast``), keeping its data, until ``up``."""
        _as_user(self.user, [str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "stop"])

    def up(self) -> None:
        """Start the server ``down`` stopped, with its first start's settings."""
        _as_user(self.user, [str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-l", str(self.root / "server.log"),
                             "-o", self.options, "-w", "-t", str(START_TIMEOUT), "start"])

    def stop(self) -> None:
        """Stop the server (immediately: nothing in it is kept) and remove its folder."""
        try:
            _as_user(self.user, [str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-m", "immediate",
                                 "-w", "stop"], check=False)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _as_user(user: str | None, argv: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
    kwargs = {}
    if user is not None:
        entry = pwd.getpwnam(user)
        kwargs = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    env.pop("PGDATA", None)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=START_TIMEOUT + 30, env=env,
                            cwd="/", **kwargs)
    if check and result.returncode != 0:
        raise PgUnavailable(f"{Path(argv[0]).name} failed ({result.returncode}): "
                            f"{(result.stderr or result.stdout).strip()[-2000:]}")
    return result


def start(*, durable: bool = False) -> PgServer:
    """initdb a new cluster in a temporary folder and start it on a Unix socket there. ``durable``
    keeps PostgreSQL's defaults (fsync, synchronous commit: a commit is on disk before it returns),
    as the benchmark wants; the tests turn them off (the bot's own sessions turn synchronous commit
    back on: bot/store/postgres.py, ``_SESSION_SETTINGS``)."""
    bindir = find_bindir()
    user, uid, gid = _run_as()
    root = Path(tempfile.mkdtemp(prefix="referee-pg-"))
    server = PgServer(root, bindir, user)
    try:
        server.socket_dir.mkdir()
        os.chmod(root, 0o755)
        os.chmod(server.socket_dir, 0o777)  # anyone may reach the socket (trust auth: it is a test server)
        if uid is not None:
            os.chown(root, uid, gid)
            os.chown(server.socket_dir, uid, gid)
        _as_user(user, [str(bindir / "initdb"), "-D", str(server.data_dir), "-U", "referee", "--auth=trust",
                        "-E", "UTF8", "--locale=C", "--no-sync"])
        # fsync off: a crash of the test machine loses nothing anyone keeps; the durability of a
        # commit is PostgreSQL's, not what these tests measure
        options = f"-k {server.socket_dir} -c listen_addresses='' -c max_connections=200 -c shared_buffers=128MB"
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        server.options = options
        _as_user(user, [str(bindir / "pg_ctl"), "-D", str(server.data_dir), "-l", str(root / "server.log"),
                        "-o", options, "-w", "-t", str(START_TIMEOUT), "start"])
        _as_user(user, [str(bindir / "createdb"), "-h", str(server.socket_dir), "-U", "referee", "referee"])
    except BaseException as exc:
        log_text = (root / "server.log").read_text(errors="replace")[-2000:] if (root / "server.log").exists() else ""
        server.stop()
        if isinstance(exc, PgUnavailable) and log_text:
            raise PgUnavailable(f"{exc}\nserver log:\n{log_text}") from None
        raise
    return server


def find_pgbouncer() -> Path:
    """PgBouncer's binary (the Debian package puts it in /usr/sbin, often not on a user's PATH)."""
    found = shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None)
    if found is None:
        raise PgUnavailable("PgBouncer is not installed: `apt-get install pgbouncer` to run this test")
    return Path(found)


@dataclass
class Bouncer:
    """A PgBouncer in front of a ``PgServer``'s database, on a Unix socket of its own."""

    process: subprocess.Popen
    root: Path
    database: str
    port: int = 6432

    @property
    def dsn(self) -> str:
        return f"postgresql://referee@/{self.database}?host={self.root}&port={self.port}"

    def stop(self) -> None:
        self.process.terminate()  # the one process this harness started
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        shutil.rmtree(self.root, ignore_errors=True)


def pgbouncer(server: PgServer, database: str, pool_mode: str) -> Bouncer:
    """Start PgBouncer (``pool_mode`` session, transaction or statement) in front of ``database`` on
    ``server`` (created here), as the server's user (PgBouncer refuses root too); trust auth."""
    binary = find_pgbouncer()
    server.psql(f"CREATE DATABASE {database}")
    root = Path(tempfile.mkdtemp(prefix="referee-pgbouncer-"))
    os.chmod(root, 0o777)
    config = root / "pgbouncer.ini"
    config.write_text(
        "[databases]\n"
        f"{database} = host={server.socket_dir} dbname={database} user=referee\n"
        "[pgbouncer]\n"
        f"listen_addr =\nunix_socket_dir = {root}\nlisten_port = 6432\n"
        f"auth_type = trust\nauth_file = {root / 'users.txt'}\npool_mode = {pool_mode}\n"
        f"logfile = {root / 'pgbouncer.log'}\npidfile = {root / 'pgbouncer.pid'}\n"
        "max_client_conn = 100\ndefault_pool_size = 10\n")
    (root / "users.txt").write_text('"referee" ""\n')
    kwargs = {}
    if server.user is not None:
        entry = pwd.getpwnam(server.user)
        kwargs = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    process = subprocess.Popen([str(binary), str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               cwd="/", **kwargs)
    bouncer = Bouncer(process, root, database)
    for _ in range(200):  # its socket appears once it listens
        if (root / ".s.PGSQL.6432").exists():
            return bouncer
        if process.poll() is not None:
            error = process.stderr.read().decode(errors="replace") if process.stderr else ""
            shutil.rmtree(root, ignore_errors=True)
            raise PgUnavailable(f"pgbouncer exited ({process.returncode}): {error.strip()[-1000:]}")
        time.sleep(0.05)
    bouncer.stop()
    raise PgUnavailable("pgbouncer did not listen within 10 s")


def required() -> bool:
    """True in CI (``REFEREE_CI=1``, set by .ci/run): a server that cannot start fails the tests."""
    return os.environ.get("REFEREE_CI", "") not in ("", "0")


if __name__ == "__main__":  # a quick check by hand: python -m tests.pgserver
    started = start()
    try:
        print(started.dsn)
        print(started.psql("SELECT version()"))
    finally:
        started.stop()
