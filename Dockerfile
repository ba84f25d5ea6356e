# Referee: the Discord bot. Build: docker build -t referee .
# Run:   docker run -d --name referee -e REFEREE_TOKEN=... -v referee-data:/data referee
# With the PostgreSQL driver (several bot processes on one PostgreSQL: compose.yaml builds it so):
#        docker build --build-arg REQUIREMENTS=requirements-postgres.lock -t referee-pg .
ARG REQUIREMENTS=requirements.lock

# The base image by its exact version and its digest: a tag such as python:3.12-slim moves with
# every Python patch release and Debian rebuild, a digest names one image. This is the multi-platform
# index digest of python:3.12.14-slim-trixie as public Dockerfiles pin it (one names it with that tag,
# others as python:3.12-slim, and a build log from it shows Python 3.12.14 built with Debian
# trixie's GCC 14.2). Docker Hub was not reachable where this was written, so the digest was taken
# from those, not pulled. To move to a newer release (security fixes), put its exact tag and digest:
#   docker buildx imagetools inspect python:3.12.15-slim-trixie    # "Digest:" of the index
# tests/test_supply_chain.py refuses a moving tag (no exact version, or no digest).
ARG PYTHON_IMAGE=python:3.12.14-slim-trixie@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

# The wheel: it carries the code, the migrations and the rules tables (data/, shipped as the
# package referee_data), so the image needs no source tree. Built with the locked build tools.
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY requirements.lock ./
RUN pip install --require-hashes -r requirements.lock
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY data ./data
RUN pip wheel --no-deps --no-build-isolation --wheel-dir /wheels .

FROM ${PYTHON_IMAGE} AS base
ARG REQUIREMENTS

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    REFEREE_DATABASE=/data/referee.sqlite3 \
    REFEREE_GATEWAY_STATE=/tmp/referee-gateway.json

RUN useradd --create-home --uid 10001 referee \
    && mkdir -p /data && chown referee:referee /data

# The dependencies exactly as locked (each file checked against its hash: `python3 dev.py lock`
# writes requirements.lock), then the bot's own wheel without fetching anything more.
COPY ${REQUIREMENTS} /tmp/requirements.lock
RUN pip install --require-hashes -r /tmp/requirements.lock && rm /tmp/requirements.lock
COPY --from=build /wheels /wheels
RUN pip install --no-deps /wheels/*.whl && rm -rf /wheels

# The entrypoint makes the secret files that compose mounts readable by this user, then runs the
# command as it (docker/entrypoint.sh); started as this user, as `docker run` does, it runs it as is.
COPY docker/entrypoint.sh /usr/local/bin/referee-entrypoint
RUN chmod 0755 /usr/local/bin/referee-entrypoint

USER referee
# no source tree here: `python -m bot` imports the installed package
WORKDIR /home/referee
VOLUME ["/data"]

# The bot has no HTTP port: the health check asks the database (opened, migrated, readable) and reads
# the gateway's state the bot writes to REFEREE_GATEWAY_STATE (connected, heartbeats answered).
HEALTHCHECK --interval=60s --timeout=10s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot", "health"]

STOPSIGNAL SIGTERM
ENTRYPOINT ["referee-entrypoint"]
CMD ["python", "-m", "bot", "run"]
