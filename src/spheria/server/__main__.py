"""``python -m spheria.server [--host 127.0.0.1] [--port 8000] [--db PATH]`` (same as ``spheria serve``)."""

from __future__ import annotations

import argparse

from spheria.server.command import add_arguments, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="spheria serve", description="Play Spheria's games in the browser.")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
