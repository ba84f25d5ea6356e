# Referee: the Discord bot. Build: docker build -t referee .
# Run:   docker run -d --name referee -e REFEREE_TOKEN=... -v referee-data:/data referee

# The wheel: it carries the code, the migrations and the rules tables (data/, shipped as the
# package referee_data), so the image needs no source tree.
FROM python:3.12-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY data ./data
RUN pip wheel --no-deps --wheel-dir /wheels .

FROM python:3.12-slim AS base

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    REFEREE_DATABASE=/data/referee.sqlite3

RUN useradd --create-home --uid 10001 referee \
    && mkdir -p /data && chown referee:referee /data

# A regular (non-editable) install into site-packages, with the dependencies.
COPY --from=build /wheels /wheels
RUN pip install /wheels/*.whl && rm -rf /wheels

USER referee
# no source tree here: `python -m bot` imports the installed package
WORKDIR /home/referee
VOLUME ["/data"]

# The bot has no HTTP port: the health check asks the database (opened, migrated, readable).
HEALTHCHECK --interval=60s --timeout=10s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot", "health"]

STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot", "run"]
