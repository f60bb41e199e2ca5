"""``python -m verified_bpe``: the command line (:mod:`verified_bpe.cli`)."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m verified_bpe"))
