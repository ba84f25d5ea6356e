# Referee: the Discord bot. Build: docker build -t referee .
# Run:   docker run -d --name referee -e REFEREE_TOKEN=... -v referee-data:/data referee
# With the PostgreSQL driver (several bot processes on one PostgreSQL: compose.yaml builds it so):
#        docker build --build-arg REQUIREMENTS=requirements-postgres.lock -t referee-pg .
ARG REQUIREMENTS=requirements.lock

# The base image by digest, not by tag: a tag moves when it is re-published, a digest names one
# image. This is the multi-platform index digest of python:3.12-slim as pinned in several public
# repositories' Dockerfiles (Docker Hub itself was not reachable where this was written, so it was
# taken from those, not pulled). To refresh it (a newer Python patch release, security fixes):
#   docker buildx imagetools inspect python:3.12-slim    # "Digest:" of the index
# (or docker pull python:3.12-slim && docker inspect --format '{{index .RepoDigests 0}}' python:3.12-slim)
# and put the new digest in PYTHON_IMAGE below.
ARG PYTHON_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

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
    REFEREE_DATABASE=/data/referee.sqlite3

RUN useradd --create-home --uid 10001 referee \
    && mkdir -p /data && chown referee:referee /data

# The dependencies exactly as locked (each file checked against its hash: `python3 dev.py lock`
# writes requirements.lock), then the bot's own wheel without fetching anything more.
COPY ${REQUIREMENTS} /tmp/requirements.lock
RUN pip install --require-hashes -r /tmp/requirements.lock && rm /tmp/requirements.lock
COPY --from=build /wheels /wheels
RUN pip install --no-deps /wheels/*.whl && rm -rf /wheels

USER referee
# no source tree here: `python -m bot` imports the installed package
WORKDIR /home/referee
VOLUME ["/data"]

# The bot has no HTTP port: the health check asks the database (opened, migrated, readable).
HEALTHCHECK --interval=60s --timeout=10s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot", "health"]

STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot", "run"]
