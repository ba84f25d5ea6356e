"""compose.yaml, checked by its structure (no Docker daemon runs here to start it): two bot
shards and PostgreSQL 15, each with a health check, the database on a named volume, the Discord
token and the database password read from secret files (never on a command line or in the
environment), the shards' settings valid and covering every shard once."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.config import load_settings

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
BOTS = {name: service for name, service in COMPOSE["services"].items() if name.startswith("bot-")}


def test_the_bot_shards_and_postgres_are_the_services():
    assert set(COMPOSE["services"]) == {"bot-0", "bot-1", "postgres"}
    assert COMPOSE["services"]["postgres"]["image"] == "postgres:15"


def test_every_service_has_a_health_check_and_the_bots_wait_for_a_healthy_database():
    for name, service in COMPOSE["services"].items():
        check = service["healthcheck"]
        assert check["test"][0] == "CMD-SHELL" and check["interval"] and check["retries"] >= 1, name
    assert "pg_isready -U referee -d referee" in COMPOSE["services"]["postgres"]["healthcheck"]["test"][1]
    for name, bot in BOTS.items():
        assert bot["depends_on"] == {"postgres": {"condition": "service_healthy"}}, name
        assert "python -m bot health" in bot["healthcheck"]["test"][1], name
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
        assert not {"REFEREE_TOKEN", "DISCORD_TOKEN", "REFEREE_DATABASE"} & set(bot["environment"]), name
        script = bot["entrypoint"][-1]
        assert bot["entrypoint"][:2] == ["sh", "-c"]
        assert 'REFEREE_TOKEN="$$(cat /run/secrets/discord_token)"' in script  # read at start, in the container
        assert "REFEREE_DATABASE=postgresql://referee@postgres:5432/referee" in script
        assert "REFEREE_DATABASE_PASSWORD_FILE=/run/secrets/postgres_password" in script  # encoded by the bot
        assert script.rstrip().endswith("exec python -m bot run")
        assert "--token" not in script and "password" not in " ".join(bot.get("command") or [])
        assert bot["build"]["args"]["REQUIREMENTS"] == "requirements-postgres.lock"
        assert (ROOT / bot["build"]["args"]["REQUIREMENTS"]).is_file()


def test_the_shards_settings_are_valid_and_cover_every_shard_once():
    shards = []
    for name, bot in BOTS.items():
        settings = load_settings(token=None, database="postgresql://referee@postgres/referee",
                                 **{key.removeprefix("REFEREE_").lower(): value
                                    for key, value in bot["environment"].items()})
        shards.append((settings.shards, settings.shard_count))
    counts = {count for _, count in shards}
    assert len(counts) == 1 and sorted(s for ids, _ in shards for s in ids) == list(range(counts.pop()))


def test_the_bots_and_their_health_checks_read_the_password_from_its_file_into_an_encoded_url(tmp_path):
    # issue 28: the shell pasted the password into the URL unencoded (it broke on @, / and :)
    secret = tmp_path / "postgres_password"
    secret.write_text("a@b/c:d%e", encoding="utf-8")
    for name, bot in BOTS.items():
        for text in (bot["entrypoint"][-1], bot["healthcheck"]["test"][1]):
            env = dict(re.findall(r"(REFEREE_DATABASE(?:_PASSWORD_FILE)?)=(\S+)", text))
            assert env["REFEREE_DATABASE_PASSWORD_FILE"] == "/run/secrets/postgres_password", name
            assert "$$(cat /run/secrets/postgres_password)" not in text, name
            settings = load_settings(database=env["REFEREE_DATABASE"], database_password_file=secret)
            assert settings.database == "postgresql://referee:a%40b%2Fc%3Ad%25e@postgres:5432/referee", name
