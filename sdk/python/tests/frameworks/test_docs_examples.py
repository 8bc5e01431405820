"""The LangGraph example of docs/frameworks.md runs as written (only the end user is a fresh one,
so runs never meet) and prints what the page says: Emacs now, Vim in April."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[4] / "docs" / "frameworks.md"


def test_the_langgraph_example_runs_as_documented(user_id: str) -> None:
    section = DOC.read_text().split("## LangGraph", 1)[1].split("\n## ", 1)[0]
    [code] = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    code = code.replace('"alice"', repr(user_id))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=os.environ, check=False
    )
    assert result.returncode == 0, result.stderr
    now, april = result.stdout.strip().splitlines()
    assert "Emacs" in now and "Vim" in april and "Emacs" not in april
