"""The supply chain (issue 17, finding 9): every dependency bounded in pyproject.toml, installed
from lock files with hashes (by dev.py, hence CI, and by the Dockerfile), the lock files in step
with pyproject.toml, and the base image named by digest."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import dev

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def all_requirements() -> list[Requirement]:
    project = PYPROJECT["project"]
    texts = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    return [Requirement(text) for text in texts + PYPROJECT["build-system"]["requires"]]


def pinned(lock: Path) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) of every package a lock file pins."""
    found: dict[str, tuple[str, int]] = {}
    name = None
    for line in lock.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==([^ ;\\]+)", line)
        if match:
            name = canonicalize_name(match.group(1))
            found[name] = (match.group(2), 0)
        elif name and line.strip().startswith("--hash=sha256:"):
            version, hashes = found[name]
            found[name] = (version, hashes + 1)
    return found


def test_every_dependency_has_an_upper_bound():
    loose = [str(r) for r in all_requirements()
             if not any(spec.operator in ("<", "<=", "==", "~=") for spec in r.specifier)]
    assert loose == [], f"unbounded in pyproject.toml: {loose}"


@pytest.mark.parametrize("extras", list(dev.LOCKS))
def test_the_lock_file_was_made_from_pyproject_as_it_is(extras):
    # the lock records a hash of what pyproject.toml declared when it was made
    lock = dev.LOCKS[extras]
    recorded = next(line for line in lock.read_text().splitlines() if line.startswith(dev.DIGEST_LINE))
    assert recorded.removeprefix(dev.DIGEST_LINE) == dev.declared_digest(extras), (
        f"pyproject.toml changed since {lock.name} was made: run `python3 dev.py lock`")


@pytest.mark.parametrize("extras", list(dev.LOCKS))
def test_the_lock_file_pins_every_requirement_within_its_bounds_with_hashes(extras):
    lock = pinned(dev.LOCKS[extras])
    wanted = dev.declared(extras)
    for text in wanted["dependencies"] + wanted.get("extra", []) + wanted["build"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in lock, f"{requirement.name} is not in {dev.LOCKS[extras].name}: run `python3 dev.py lock`"
        version, _ = lock[name]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{dev.LOCKS[extras].name} pins {name}=={version}, outside pyproject.toml's {requirement.specifier}")
    assert all(hashes > 0 for _, hashes in lock.values()), "a pinned package without a hash"


@pytest.mark.parametrize(("part", "whole"), [("", "test"), ("", "postgres"), ("postgres", "test")])
def test_an_install_that_serves_another_holds_its_lock_at_the_same_versions(part, whole):
    # dev.py uses the install of `whole` as it is for `part` (dev.INCLUDED_IN): `run` after `test`...
    assert whole in dev.INCLUDED_IN[part]
    base, test = pinned(dev.LOCKS[part]), pinned(dev.LOCKS[whole])
    assert {name: version for name, (version, _) in base.items()} == {
        name: test[name][0] for name in base}


def test_the_installs_use_the_locks_with_hashes():
    docker = (ROOT / "Dockerfile").read_text()
    assert docker.count("pip install --require-hashes -r") == 2  # the build stage and the image
    assert "pip install --no-deps /wheels/*.whl" in docker
    images = re.findall(r"^FROM (\S+)", docker, re.MULTILINE)
    digest = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", docker, re.MULTILINE).group(1)
    assert images == ["${PYTHON_IMAGE}", "${PYTHON_IMAGE}"]
    assert moving_tag(digest, digest_required=True) is None, digest
    source = (ROOT / "dev.py").read_text()
    assert '"--require-hashes", "-r", str(lock)' in source and '"--no-deps", "--no-build-isolation", "-e"' in source
    assert "python3 dev.py test" in (ROOT / ".ci" / "run").read_text()
    assert "python3 dev.py lock" in (ROOT / "README.md").read_text()


# --- images: an exact release, never a tag that moves ------------------------------------------

# name:MAJOR.MINOR.PATCH (or MAJOR.MINOR for a project that numbers its releases so, as PostgreSQL does:
# 15.18 is a release, 15 is not), an optional variant (-slim-trixie, -bookworm), an optional digest
EXACT_IMAGE = re.compile(r"(?P<name>[a-z0-9./_-]+):(?P<version>\d+\.\d+(?:\.\d+)?)(?P<variant>(?:-[a-z0-9.]+)*)"
                         r"(?P<digest>@sha256:[0-9a-f]{64})?")
# projects whose releases are MAJOR.MINOR.PATCH: MAJOR.MINOR is a series there, and moves
THREE_PART_VERSIONS = {"python"}


def moving_tag(image: str, *, digest_required: bool = False) -> str | None:
    """Why ``image`` is not pinned (a tag that moves when it is re-published), or None."""
    found = EXACT_IMAGE.fullmatch(image)
    if found is None:
        return f"{image}: no exact version (name:X.Y[.Z][-variant][@sha256:...])"
    if found["name"] in THREE_PART_VERSIONS and found["version"].count(".") != 2:
        return f"{image}: {found['version']} is a series of {found['name']} releases, not one"
    if digest_required and not found["digest"]:
        return f"{image}: no digest"
    return None


@pytest.mark.parametrize("image", ["postgres:15", "postgres:latest", "postgres", "python:3.12-slim",
                                   "python:3.12-slim@sha256:" + "a" * 64, "postgres:15-bookworm",
                                   "python:3-slim", "postgres:15.18@sha256:abc"])
def test_a_moving_tag_is_refused(image):
    assert moving_tag(image) is not None


@pytest.mark.parametrize("image", ["postgres:15.18-bookworm", "postgres:15.18", "python:3.12.14-slim-trixie",
                                   "python:3.12.14-slim-trixie@sha256:" + "0" * 64])
def test_an_exact_release_is_accepted(image):
    assert moving_tag(image) is None


def test_every_image_the_deployment_runs_is_an_exact_release_the_python_base_by_digest_too():
    docker = (ROOT / "Dockerfile").read_text()
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", docker, re.MULTILINE).group(1)
    assert moving_tag(base, digest_required=True) is None
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    images = {name: service["image"] for name, service in compose["services"].items() if "image" in service}
    assert images, "compose.yaml runs no pulled image: the check would prove nothing"
    assert {name: moving_tag(image) for name, image in images.items()} == dict.fromkeys(images)
