"""Finding and starting a real Chromium for the console's browser tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

# What Debian's package installs, then the usual names on PATH.
CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Flags that keep a headless Chromium quiet and off the network: it talks to aurra dev only.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium() -> str | None:
    """AURRA_CHROMIUM when set, else the first Chromium found."""
    configured = os.environ.get("AURRA_CHROMIUM")
    if configured:
        return configured if Path(configured).is_file() else None
    for candidate in CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None
