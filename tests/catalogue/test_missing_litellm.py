"""Without litellm (the generation image, an install without the 'llm' extra) a catalogue
build refuses before it plans anything, in one error naming what to install or run."""

from __future__ import annotations

import importlib.util

import pytest

from docfleet.catalogue import llm
from docfleet.core.errors import ConfigError


def test_require_litellm_names_the_extra_and_the_full_image(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "litellm" else real(name, *a))
    with pytest.raises(ConfigError) as caught:
        llm.require_litellm()
    assert "needs litellm" in str(caught.value) and "docfleet[llm]" in str(caught.value)
    assert "-full" in str(caught.value)

