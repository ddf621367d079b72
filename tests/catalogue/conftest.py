from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from support.fake_llm import FakeLLM

os.environ.setdefault("OPENAI_API_KEY", "sk-fake-key-for-the-local-test-server")


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server
