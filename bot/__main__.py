"""`python -m bot` (and the `referee` script): run, sandbox or rules; see bot/cli.py."""

from __future__ import annotations

import os
import sys


def main() -> None:
    from bot.cli import main as cli_main

    try:
        code = cli_main()
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (`... | head`): not an error of ours, and no traceback;
        # point stdout at devnull so the interpreter's final flush does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
