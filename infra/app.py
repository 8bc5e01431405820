#!/usr/bin/env python3
"""Entry point of Aurra's CDK app: `cdk synth` / `cdk deploy` run this file
(cdk.json's `app`), and so does `python infra/app.py` on its own."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from infra.application import create_app


def main() -> None:
    app, _stack = create_app()
    app.synth()


if __name__ == "__main__":
    main()
