#!/bin/sh
# The image's entrypoint (installed as /usr/local/bin/referee-entrypoint): makes the secret files
# readable by the bot's own user, then runs the command given ("python -m bot run") as that user.
#
# Why: outside Swarm, `docker compose` bind-mounts a secret file under /run/secrets with the host's
# owner and mode. The README's `chmod 600 discord_token.txt` leaves it readable by the host user
# alone, so the image's user (10001) could not read the token ("no Discord token", exit 2, a
# restart loop). compose.yaml therefore starts the bot's container as root, for this step only,
# with no capability but those it needs (cap_add there):
#   1. each file named by REFEREE_TOKEN_FILE or REFEREE_DATABASE_PASSWORD_FILE is copied into
#      REFEREE_SECRETS_COPY (/run/referee, a tmpfs: never on disk), a directory of the bot's user
#      with mode 0700, each copy 0400, and the variable is pointed at the copy;
#   2. the script runs itself again as the bot's user through setpriv (util-linux, part of the base
#      image; the official redis image drops privileges the same way): real, effective and saved
#      uid and gid 10001, no supplementary groups, so no capability is left;
#   3. as that user it reads the token file into REFEREE_TOKEN (the bot reads the password file
#      itself and puts the password into the URL percent-encoded: bot/config.py) and execs the
#      command, which is then the container's main process (docker stop's SIGTERM reaches it).
# Started as the bot's user already (the Dockerfile's USER: a plain `docker run`, or secrets the
# user can read), it skips the copy. tests/test_compose.py runs this very file as root on a secret
# owned by another user with mode 600, with compose.yaml's capabilities only, and reads the secrets
# back as uid 10001.
set -eu

APP_UID="${REFEREE_APP_UID:-10001}"
APP_GID="${REFEREE_APP_GID:-10001}"
SECRETS_COPY="${REFEREE_SECRETS_COPY:-/run/referee}"

if [ "$#" -eq 0 ]; then
    echo "referee-entrypoint: give the command to run (e.g. python -m bot run)" >&2
    exit 2
fi

if [ "$(id -u)" = 0 ] && [ "$APP_UID" != 0 ]; then
    install -d -m 0700 -o "$APP_UID" -g "$APP_GID" "$SECRETS_COPY"
    for name in REFEREE_TOKEN_FILE REFEREE_DATABASE_PASSWORD_FILE; do
        eval "source=\${$name:-}"
        [ -n "$source" ] || continue
        copy="$SECRETS_COPY/${name#REFEREE_}"
        if ! install -m 0400 -o "$APP_UID" -g "$APP_GID" "$source" "$copy"; then
            echo "referee-entrypoint: $name $source cannot be read (is the secret's file there?)" >&2
            exit 2
        fi
        export "$name=$copy"
    done
    exec setpriv --reuid="$APP_UID" --regid="$APP_GID" --clear-groups -- "$0" "$@"
fi

if [ -n "${REFEREE_TOKEN_FILE:-}" ]; then
    if ! REFEREE_TOKEN="$(cat "$REFEREE_TOKEN_FILE")"; then
        echo "referee-entrypoint: REFEREE_TOKEN_FILE $REFEREE_TOKEN_FILE cannot be read by uid $(id -u)" \
             "(start the container as root, as compose.yaml does, or make the file readable by it)" >&2
        exit 2
    fi
    export REFEREE_TOKEN
    unset REFEREE_TOKEN_FILE
fi
exec "$@"
