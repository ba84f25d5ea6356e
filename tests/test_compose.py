"""compose.yaml: two bot shards and PostgreSQL 15, each with a health check, the database on a
named volume, the Discord token and the database password read from secret files (never on a
command line or in the environment), the shards' settings valid and covering every shard once.
No Docker daemon runs here, so the file is checked by its structure, and its one moving part, the
entrypoint that makes the secrets readable by the image's user, is run for real: as root with
compose's capabilities only, on a secret file mounted as compose mounts it (another owner, mode
600), and the secrets are read back as uid 10001 in a subprocess."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from bot.config import load_settings

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
BOTS = {name: service for name, service in COMPOSE["services"].items() if name.startswith("bot-")}
ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"
IMAGE_UID = 10001  # the Dockerfile's `useradd --uid`
HOST_UID = 1000  # the host user who wrote the secret files (README: printf ... > discord_token.txt)


def test_the_bot_shards_and_postgres_are_the_services():
    assert set(COMPOSE["services"]) == {"bot-0", "bot-1", "postgres"}
    assert COMPOSE["services"]["postgres"]["image"].startswith("postgres:15.")  # pinned: test_supply_chain.py


def test_every_service_has_a_health_check_and_the_bots_wait_for_a_healthy_database():
    for name, service in COMPOSE["services"].items():
        check = service["healthcheck"]
        assert check["test"][0] in ("CMD", "CMD-SHELL") and check["interval"] and check["retries"] >= 1, name
    assert "pg_isready -U referee -d referee" in COMPOSE["services"]["postgres"]["healthcheck"]["test"][1]
    for name, bot in BOTS.items():
        assert bot["depends_on"] == {"postgres": {"condition": "service_healthy"}}, name
        # through the entrypoint, as the bot itself: the check reads the secrets as the image's user
        assert bot["healthcheck"]["test"] == ["CMD", "referee-entrypoint", "python", "-m", "bot", "health"], name
        assert bot["restart"] == COMPOSE["services"]["postgres"]["restart"] == "unless-stopped"


def test_the_database_lives_on_a_named_volume():
    postgres = COMPOSE["services"]["postgres"]
    assert postgres["volumes"] == ["referee-postgres:/var/lib/postgresql/data"]
    assert "referee-postgres" in COMPOSE["volumes"]


def test_the_token_and_the_password_come_from_secret_files_never_from_the_environment_or_a_command_line():
    assert COMPOSE["secrets"] == {"discord_token": {"file": "./discord_token.txt"},
                                  "postgres_password": {"file": "./postgres_password.txt"}}
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert {"/discord_token.txt", "/postgres_password.txt"} <= set(ignored)  # never committed by mistake
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert not re.search(r"^COPY\s+\.\s", dockerfile, re.M)  # nor copied into the image: it names what it copies
    postgres = COMPOSE["services"]["postgres"]
    assert postgres["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    assert postgres["secrets"] == ["postgres_password"]
    for name, bot in BOTS.items():
        assert set(bot["secrets"]) == {"discord_token", "postgres_password"}, name
        env = bot["environment"]
        assert not {"REFEREE_TOKEN", "DISCORD_TOKEN"} & set(env), name
        assert env["REFEREE_TOKEN_FILE"] == "/run/secrets/discord_token", name  # read by the entrypoint
        assert env["REFEREE_DATABASE"] == "postgresql://referee@postgres:5432/referee", name  # no password in it
        assert env["REFEREE_DATABASE_PASSWORD_FILE"] == "/run/secrets/postgres_password", name  # encoded by the bot
        assert bot["entrypoint"] == ["referee-entrypoint"] and bot["command"] == ["python", "-m", "bot", "run"], name
        assert bot["build"]["args"]["REQUIREMENTS"] == "requirements-postgres.lock"
        assert (ROOT / bot["build"]["args"]["REQUIREMENTS"]).is_file()


def test_the_bots_start_as_root_for_the_entrypoint_alone_with_only_the_capabilities_it_needs():
    for name, bot in BOTS.items():
        assert bot["user"] == "root" and bot["cap_drop"] == ["ALL"], name
        assert set(bot["cap_add"]) == {"CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID"}, name
        assert bot["security_opt"] == ["no-new-privileges:true"] and bot["tmpfs"] == ["/run/referee"], name
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "COPY docker/entrypoint.sh /usr/local/bin/referee-entrypoint" in dockerfile
    assert 'ENTRYPOINT ["referee-entrypoint"]' in dockerfile and "USER referee" in dockerfile
    assert f"--uid {IMAGE_UID} referee" in dockerfile
    script = ENTRYPOINT.read_text(encoding="utf-8")
    assert 'APP_UID="${REFEREE_APP_UID:-10001}"' in script and "exec setpriv --reuid=" in script
    assert os.access(ENTRYPOINT, os.X_OK)


# --- the entrypoint run for real -------------------------------------------------------------


def _as(uid: int):
    """A subprocess's preexec_fn: become ``uid`` (gid the same, no supplementary groups)."""
    def switch() -> None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    return switch


def _needs_root_and_setpriv() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root: a secret file owned by another user and a switch to uid 10001 (run the suite as "
                    "root, as CI's container does, to run it)")
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux), which the image's entrypoint uses")


@pytest.fixture
def mounted(tmp_path):
    """Compose's secrets as it mounts them outside Swarm: the host user's files, mode 600, in a folder
    every user may pass through (as /run/secrets is); and a folder for the entrypoint's copies."""
    _needs_root_and_setpriv()
    # the tests' tmp_path is root's alone (0700): the image's user could not pass through it
    top = Path(tempfile.mkdtemp(prefix="referee-compose-"))
    try:
        top.chmod(0o755)
        secrets = top / "secrets"
        secrets.mkdir(mode=0o755)
        for secret, text in (("discord_token", "the-token\n"), ("postgres_password", "a@b/c:d%e\n")):
            path = secrets / secret
            path.write_text(text, encoding="utf-8")
            os.chown(path, HOST_UID, HOST_UID)
            path.chmod(0o600)  # README: chmod 600 discord_token.txt postgres_password.txt
        entrypoint = top / "referee-entrypoint"  # as the Dockerfile installs it
        shutil.copy(ENTRYPOINT, entrypoint)
        entrypoint.chmod(0o755)
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _environment(top: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("REFEREE_", "DISCORD_"))}
    bot = BOTS["bot-0"]["environment"]
    env.update({key: str(value) for key, value in bot.items()})
    # compose's paths under the test's folder: /run/secrets/NAME -> TOP/secrets/NAME
    for key in ("REFEREE_TOKEN_FILE", "REFEREE_DATABASE_PASSWORD_FILE"):
        env[key] = str(top / "secrets" / Path(env[key]).name)
    env["REFEREE_SECRETS_COPY"] = str(top / "run-referee")  # compose's tmpfs /run/referee
    return env


def _with_capabilities(caps: list[str]) -> list[str]:
    """Run as root holding only ``caps`` (compose's cap_drop ALL and cap_add), as the container does."""
    return ["setpriv", "--bounding-set=-all," + ",".join("+" + cap.lower() for cap in caps), "--"]


READ_BACK = (
    "import os, sys\n"
    "from bot.config import load_settings\n"
    "settings = load_settings()\n"
    "print(os.getuid(), os.getgid(), os.getgroups(), settings.token.get_secret_value(), settings.database,"
    " 'REFEREE_TOKEN_FILE' in os.environ)\n"
)


def _interpreter_for(uid: int) -> str:
    """This interpreter, if ``uid`` can run it with the bot importable; else the test skips."""
    probe = subprocess.run([sys.executable, "-c", "import bot.config"], preexec_fn=_as(uid), cwd="/",
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        pytest.skip(f"uid {uid} cannot run this checkout's interpreter with the bot importable (a checkout in a "
                    f"folder other users cannot enter): {probe.stderr.strip().splitlines()[-1:]}")
    return sys.executable


def test_the_mounted_secret_is_unreadable_to_the_images_user_without_the_entrypoint(mounted):
    # what the old entrypoint did (cat /run/secrets/discord_token as the image's user): refused
    token = mounted / "secrets" / "discord_token"
    read = subprocess.run(["cat", str(token)], preexec_fn=_as(IMAGE_UID), capture_output=True, text=True)
    assert read.returncode != 0 and "Permission denied" in read.stderr


def test_the_entrypoint_gives_the_images_user_the_secrets_and_the_bot_reads_them(mounted):
    python = _interpreter_for(IMAGE_UID)
    caps = BOTS["bot-0"]["cap_add"]
    started = subprocess.run([*_with_capabilities(caps), str(mounted / "referee-entrypoint"), python, "-c", READ_BACK],
                             env=_environment(mounted), cwd="/", capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    uid, gid, groups, token, database, token_file_left = started.stdout.split()
    # the bot runs as the image's user, with no group of root's, and has the token and the encoded password
    assert (uid, gid, groups) == (str(IMAGE_UID), str(IMAGE_UID), "[]")
    assert token == "the-token"
    assert database == "postgresql://referee:a%40b%2Fc%3Ad%25e@postgres:5432/referee"
    assert token_file_left == "False"
    copies = mounted / "run-referee"
    assert (copies.stat().st_uid, oct(copies.stat().st_mode & 0o777)) == (IMAGE_UID, "0o700")
    for copy in copies.iterdir():  # readable by that user alone
        assert (copy.stat().st_uid, oct(copy.stat().st_mode & 0o777)) == (IMAGE_UID, "0o400"), copy


def test_the_health_check_goes_through_the_entrypoint_as_the_images_user(mounted):
    # docker runs the check as root in the container: the entrypoint copies again and drops to 10001
    caps = BOTS["bot-0"]["cap_add"]
    check = subprocess.run([*_with_capabilities(caps), str(mounted / "referee-entrypoint"), "sh", "-c",
                            'id -u; cat "$REFEREE_DATABASE_PASSWORD_FILE"'],
                           env=_environment(mounted), cwd="/", capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    assert check.stdout.split() == [str(IMAGE_UID), "a@b/c:d%e"]


@pytest.mark.parametrize("missing", ["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID"])
def test_each_capability_compose_keeps_is_needed(mounted, missing):
    # compose.yaml keeps five capabilities: without any one of them the entrypoint stops, with one line
    caps = [cap for cap in BOTS["bot-0"]["cap_add"] if cap != missing]
    started = subprocess.run([*_with_capabilities(caps), str(mounted / "referee-entrypoint"), "true"],
                             env=_environment(mounted), cwd="/", capture_output=True, text=True, timeout=60)
    assert started.returncode != 0, missing


def test_a_token_the_images_user_cannot_read_stops_the_start_with_one_line(mounted):
    # started as the image's user (no root step), on the mounted file: a clear line, exit 2, not a bot
    # that starts with "no Discord token"
    env = _environment(mounted)
    started = subprocess.run([str(mounted / "referee-entrypoint"), "true"], env=env, cwd="/",
                             preexec_fn=_as(IMAGE_UID), capture_output=True, text=True, timeout=60)
    assert started.returncode == 2
    assert started.stderr.splitlines()[-1] == (
        f"referee-entrypoint: REFEREE_TOKEN_FILE {env['REFEREE_TOKEN_FILE']} cannot be read by uid {IMAGE_UID} "
        "(start the container as root, as compose.yaml does, or make the file readable by it)")


def test_the_shards_settings_are_valid_and_cover_every_shard_once():
    shards = []
    for name, bot in BOTS.items():
        settings = load_settings(token=None, database="postgresql://referee@postgres/referee",
                                 **{key.removeprefix("REFEREE_").lower(): value
                                    for key, value in bot["environment"].items() if "SHARD" in key})
        shards.append((settings.shards, settings.shard_count))
    counts = {count for _, count in shards}
    assert len(counts) == 1 and sorted(s for ids, _ in shards for s in ids) == list(range(counts.pop()))


def test_the_bots_and_their_health_checks_read_the_password_from_its_file_into_an_encoded_url(tmp_path):
    # issue 28: the shell pasted the password into the URL unencoded (it broke on @, / and :)
    secret = tmp_path / "postgres_password"
    secret.write_text("a@b/c:d%e", encoding="utf-8")
    for name, bot in BOTS.items():
        env = bot["environment"]
        assert "$(cat" not in yaml.safe_dump(bot), name  # no shell reads a secret into a command line
        settings = load_settings(database=env["REFEREE_DATABASE"], database_password_file=secret)
        assert settings.database == "postgresql://referee:a%40b%2Fc%3Ad%25e@postgres:5432/referee", name
