"""The tests' throw-away PostgreSQL (tests/pgserver.py): where it cannot start it says why, and
under REFEREE_CI=1 (.ci/run) that is a failure, not a skip; the server it starts listens on a Unix
socket only, and not as root."""

from __future__ import annotations

import os

import pytest

from tests import pgserver


def test_missing_binaries_are_named_with_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("REFEREE_PG_BINDIR", str(tmp_path))
    with pytest.raises(pgserver.PgUnavailable, match="holds no initdb"):
        pgserver.find_bindir()


def test_ci_requires_the_server(monkeypatch):
    monkeypatch.setenv("REFEREE_CI", "1")
    assert pgserver.required()
    monkeypatch.setenv("REFEREE_CI", "")
    assert not pgserver.required()


def test_the_sessions_server_listens_on_a_socket_only_and_not_as_root(pg_server):
    assert pg_server.psql("SHOW listen_addresses").strip() == ""
    assert pg_server.psql("SELECT current_setting('server_version_num')::int >= 150000").strip() == "t"
    assert os.path.exists(pg_server.socket_dir / ".s.PGSQL.5432")
    if os.geteuid() == 0:  # PostgreSQL refuses root: the server runs as an unprivileged user
        assert pg_server.psql("SELECT current_user").strip() == "referee"
        assert os.stat(pg_server.data_dir).st_uid != 0
