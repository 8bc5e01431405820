"""The framework adapters' tests: the real framework packages (LangGraph, the OpenAI Agents SDK,
Strands Agents) with a scripted local model, against a running `aurra dev`.

They run in their own environment (`make setup-frameworks`: the SDK with its framework extras),
since the frameworks' dependencies need not agree with the service's; tests/e2e/
test_sdk_frameworks.py starts `aurra dev` and runs them there with AURRA_BASE_URL and
AURRA_API_KEY set.
"""

from __future__ import annotations

import os
import uuid

import pytest

from aurra import Aurra

VIM = "User uses Vim as their editor"
EMACS = "User has been using Emacs as their daily editor, having moved away from Vim"
APRIL = "2026-04-01T00:00:00Z"
MAY = "2026-05-03T10:00:00Z"
IN_APRIL = "2026-04-15T00:00:00Z"


@pytest.fixture(scope="session")
def client() -> Aurra:
    if not os.environ.get("AURRA_BASE_URL") or not os.environ.get("AURRA_API_KEY"):
        pytest.fail("run through tests/e2e/test_sdk_frameworks.py, which starts aurra dev")
    return Aurra()


@pytest.fixture
def user_id() -> str:
    """A fresh end user per test: tests never see each other's memories."""
    return f"user-{uuid.uuid4().hex[:10]}"
