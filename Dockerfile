# Referee: the Discord bot. Build: docker build -t referee .
# Run:   docker run -d --name referee -e REFEREE_TOKEN=... -v referee-data:/data referee
FROM python:3.12-slim AS base

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    REFEREE_DATABASE=/data/referee.sqlite3

RUN useradd --create-home --uid 10001 referee \
    && mkdir -p /data && chown referee:referee /data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY data ./data
RUN pip install -e .

USER referee
VOLUME ["/data"]

# The bot has no HTTP port: the health check asks the database (opened, migrated, readable).
HEALTHCHECK --interval=60s --timeout=10s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot", "health"]

STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot", "run"]
