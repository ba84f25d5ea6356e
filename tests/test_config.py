"""Settings from the environment: defaults, REFEREE_ overrides, DISCORD_TOKEN, clear errors."""

import logging
from pathlib import Path

import pytest

from bot.config import ConfigError, Settings, default_database, load_settings
from bot.logs import interaction_context, setup_logging

ENV = ("REFEREE_TOKEN", "DISCORD_TOKEN", "REFEREE_DATABASE", "REFEREE_DEV_GUILD", "REFEREE_LOG_LEVEL",
       "REFEREE_SANDBOX_DATABASE", "REFEREE_SANDBOX_SEED", "XDG_DATA_HOME")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_defaults_have_no_token_and_info_logging():
    settings = load_settings()
    assert settings.token is None and not settings.has_token
    assert settings.dev_guild is None
    assert settings.log_level == "INFO" and settings.log_level_number == logging.INFO
    assert settings.sandbox_database is None and settings.sandbox_seed is None


def test_database_defaults_to_the_users_data_dir(tmp_path):
    expected = tmp_path / "home" / ".local" / "share" / "referee" / "referee.sqlite3"
    assert load_settings().database == expected


def test_database_follows_xdg_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_database() == tmp_path / "xdg" / "referee" / "referee.sqlite3"
    assert load_settings().database == tmp_path / "xdg" / "referee" / "referee.sqlite3"


def test_database_is_not_inside_the_repository():
    repo = Path(__file__).resolve().parents[1]
    assert repo not in load_settings().database.parents


def test_referee_env_overrides(monkeypatch):
    monkeypatch.setenv("REFEREE_DATABASE", "/data/referee.sqlite3")
    monkeypatch.setenv("REFEREE_DEV_GUILD", "123456789012345678")
    monkeypatch.setenv("REFEREE_LOG_LEVEL", "debug")
    monkeypatch.setenv("REFEREE_SANDBOX_SEED", "42")
    settings = load_settings()
    assert settings.database == Path("/data/referee.sqlite3")
    assert settings.dev_guild == 123456789012345678
    assert settings.log_level == "DEBUG"
    assert settings.sandbox_seed == 42


def test_discord_token_is_accepted(monkeypatch):
    monkeypatch.setenv("DISCORD_TOKEN", "abc.def.ghi")
    settings = load_settings()
    assert settings.has_token and settings.token.get_secret_value() == "abc.def.ghi"


def test_referee_token_wins_over_discord_token(monkeypatch):
    monkeypatch.setenv("DISCORD_TOKEN", "from-discord")
    monkeypatch.setenv("REFEREE_TOKEN", "from-referee")
    assert load_settings().token.get_secret_value() == "from-referee"


def test_blank_token_means_no_token(monkeypatch):
    monkeypatch.setenv("DISCORD_TOKEN", "   ")
    assert not load_settings().has_token


def test_token_never_shows_in_repr(monkeypatch):
    monkeypatch.setenv("DISCORD_TOKEN", "very-secret-token")
    assert "very-secret-token" not in repr(load_settings())


def test_invalid_dev_guild_is_one_clear_line(monkeypatch):
    monkeypatch.setenv("REFEREE_DEV_GUILD", "my-server")
    with pytest.raises(ConfigError) as exc:
        load_settings()
    message = str(exc.value)
    assert message.startswith("invalid setting REFEREE_DEV_GUILD:")
    assert "'my-server'" in message and "\n" not in message


def test_unknown_log_level_lists_the_levels(monkeypatch):
    monkeypatch.setenv("REFEREE_LOG_LEVEL", "chatty")
    with pytest.raises(ConfigError, match="REFEREE_LOG_LEVEL: must be one of DEBUG, INFO"):
        load_settings()


def test_overrides_by_keyword():
    settings = load_settings(token="t0k", dev_guild=7)
    assert isinstance(settings, Settings)
    assert settings.token.get_secret_value() == "t0k" and settings.dev_guild == 7


@pytest.fixture
def root_logger():
    """Leave the root logger as the test found it (level and handlers)."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    yield root
    root.handlers[:] = handlers
    root.setLevel(level)


def test_log_lines_carry_the_interaction_id(root_logger):
    import io

    stream = io.StringIO()
    setup_logging("INFO", stream=stream)
    logger = logging.getLogger("referee.test")
    logger.info("before")
    with interaction_context(1234):
        logger.info("during")
    logger.info("after")
    lines = stream.getvalue().splitlines()
    assert lines[0].endswith("referee.test: before")
    assert lines[1].endswith("referee.test: [interaction 1234] during")
    assert lines[2].endswith("referee.test: after")


def test_setup_logging_twice_keeps_one_handler(root_logger):
    import io

    first = setup_logging("INFO", stream=io.StringIO())
    second = setup_logging("INFO", stream=io.StringIO())
    assert first not in root_logger.handlers and second in root_logger.handlers


# --- the PostgreSQL password from a file, into the URL percent-encoded (issue 28) ---------------

def test_the_password_file_goes_into_the_url_encoded_whatever_it_holds(tmp_path):
    from urllib.parse import unquote, urlsplit

    secret = tmp_path / "postgres_password"
    password = "p@ss/w:rd%?#é"  # each of these broke the URL pasted together by compose's shell
    secret.write_text(password + "\n", encoding="utf-8")  # a trailing newline is the file's, not the password's
    settings = load_settings(database="postgresql://referee@postgres:5432/referee", database_password_file=secret)
    assert settings.database == "postgresql://referee:p%40ss%2Fw%3Ard%25%3F%23%C3%A9@postgres:5432/referee"
    parts = urlsplit(settings.database)
    assert (parts.username, unquote(parts.password), parts.hostname, parts.port, parts.path) == (
        "referee", password, "postgres", 5432, "/referee")


@pytest.mark.parametrize(("database", "content", "says"), [
    ("postgresql://referee:other@postgres/referee", "x", "holds a password already"),
    ("postgresql://postgres/referee", "x", "names no user"),
    (None, "x", "set REFEREE_DATABASE to its postgresql:// URL"),
    ("postgresql://referee@postgres/referee", "", "is empty"),
    ("postgresql://referee@postgres/referee", None, "cannot be read (No such file or directory)"),
])
def test_a_password_file_that_cannot_be_used_stops_the_start_with_one_line(tmp_path, database, content, says):
    secret = tmp_path / "postgres_password"
    if content is not None:
        secret.write_text(content, encoding="utf-8")
    given = {"database_password_file": secret} | ({"database": database} if database else
                                                   {"database": str(tmp_path / "referee.sqlite3")})
    with pytest.raises(ConfigError) as refused:
        load_settings(**given)
    assert str(refused.value).startswith("invalid settings: ") and says in str(refused.value)
    assert "\n" not in str(refused.value)


# --- PostgreSQL's pool and statement timeout (issue 28): each limit at, below and above -------------


@pytest.mark.parametrize(("name", "value", "accepted"), [
    ("REFEREE_DATABASE_POOL_MAX", "1", True), ("REFEREE_DATABASE_POOL_MAX", "0", False),
    ("REFEREE_DATABASE_POOL_MAX", "1000", True), ("REFEREE_DATABASE_POOL_MAX", "1001", False),
    ("REFEREE_DATABASE_POOL_MIN", "0", True), ("REFEREE_DATABASE_POOL_MIN", "-1", False),
    ("REFEREE_DATABASE_POOL_MIN", "20", True), ("REFEREE_DATABASE_POOL_MIN", "21", False),  # the default max is 20
    ("REFEREE_DATABASE_STATEMENT_TIMEOUT", "1", True), ("REFEREE_DATABASE_STATEMENT_TIMEOUT", "0.9", False),
    ("REFEREE_DATABASE_STATEMENT_TIMEOUT", "3600", True), ("REFEREE_DATABASE_STATEMENT_TIMEOUT", "3601", False),
])
def test_the_pool_and_statement_timeout_settings_hold_their_limits_in_one_line(monkeypatch, name, value, accepted):
    monkeypatch.setenv(name, value)
    if accepted:
        settings = load_settings()
        field = name.removeprefix("REFEREE_").lower()
        assert getattr(settings, field) == float(value)
        return
    with pytest.raises(ConfigError) as refused:
        load_settings()
    assert name in str(refused.value) and "\n" not in str(refused.value)


def test_the_pool_defaults_and_the_processes_counted_from_the_shards():
    settings = load_settings()
    assert settings.pool() == {"pool_min": 1, "pool_max": 20, "statement_timeout": 30.0, "processes": 1}
    assert load_settings(shard_id=1, shard_count=4).processes == 4  # one shard each: four processes
    assert load_settings(shard_ids="0,1", shard_count=4).processes == 2
    assert load_settings(shard_ids="0,1,2", shard_count=4).processes == 2  # the rest in a second one, at least
