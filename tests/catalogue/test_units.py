"""The catalogue's pure parts: plan, options, routing, validation, procedural text, prices
and the budget guard's blocks (no litellm, no network)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from docfleet.catalogue.budget import BudgetGuard, ModelPrice, prompt_token_bound
from docfleet.catalogue.pack import CataloguePack
from docfleet.catalogue.plan import parse_options
from docfleet.catalogue.procedural import procedural_text
from docfleet.catalogue.prompts import build_messages
from docfleet.catalogue.routing import Router
from docfleet.catalogue.validate import Rejected, validate_answer
from docfleet.core.errors import ConfigError
from docfleet.state.sqlite.store import SQLiteStateStore


def test_options_normalise_idempotently_and_define_the_plan() -> None:
    pack = CataloguePack()
    once = pack.validate_options({"models": "openai/a=3,openai/b", "budget_usd": "2.5",
                                  "prices": {"openai/a": [0.15, "0.6"]}, "variants": 2})
    assert pack.validate_options(once) == once  # workers re-validate the stored options
    opts = parse_options(once)
    assert opts.models == {"openai/a": 3.0, "openai/b": 1.0}
    assert opts.cap_nano == 2_500_000_000
    assert opts.total == 4 * 8 * 4 * 2
    keys = [opts.item(i).key for i in range(opts.total)]
    assert len(set(keys)) == opts.total
    with pytest.raises(IndexError):
        opts.item(opts.total)


@pytest.mark.parametrize("bad", [{}, {"models": "a", "kinds": "poem"}, {"models": "a=0"},
                                 {"models": "a", "budget_usd": "-1"}, {"models": "a", "x": 1},
                                 {"models": "a", "prices": {"a": [1]}}])
def test_bad_options_are_refused_with_a_config_error(bad: dict) -> None:
    with pytest.raises(ConfigError):
        parse_options(bad)


def test_routing_is_stable_weighted_and_moves_only_a_quarantined_models_items() -> None:
    router = Router({"a": 3.0, "b": 1.0}, fallback=["f"])
    keys = [f"item-{i}" for i in range(4000)]
    first = {k: router.candidates(k)[0] for k in keys}
    assert first == {k: Router({"b": 1.0, "a": 3.0}, ["f"]).candidates(k)[0] for k in keys}
    share = Counter(first.values())["a"] / len(keys)
    assert 0.70 < share < 0.80  # weight 3:1
    without_a = {k: router.candidates(k, excluded={"a"})[0] for k in keys}
    assert all(without_a[k] == "b" for k in keys)
    assert all(router.candidates(k)[1] == "f" for k in keys[:50])  # then the fallback pool
    assert router.candidates("x", excluded={"a", "b", "f"}) == []


def _item(locale: str = "en-US", kind: str = "tagline"):  # type: ignore[no-untyped-def]
    opts = parse_options({"models": "m", "kinds": kind, "locales": locale, "variants": 1})
    return opts.item(0)


@pytest.mark.parametrize(("content", "reason"), [
    (None, "empty"), ("  ", "empty"), ('{"text": ""}', "empty"), ("not json", "schema"),
    ('{"txt": "x"}', "schema"), ('{"text": "' + "x" * 61 + '"}', "length"),
    ('{"text": "Write to sales@example.com"}', "pii"),
    ('{"text": "Visit www.example.com today"}', "pii"),
    ('{"text": "Call +44 20 7946 0958 now"}', "pii"),
    ('{"text": "Die Qualität für Ihr Team"}', "language"),
])
def test_validation_rejects_with_a_stable_reason(content: str | None, reason: str) -> None:
    with pytest.raises(Rejected) as info:
        validate_answer(content, _item())
    assert info.value.reason == reason


def test_validation_accepts_fenced_json_in_the_right_language() -> None:
    assert validate_answer('```json\n{"text": "Qualité pour vos équipes"}\n```',
                           _item("fr-FR")) == "Qualité pour vos équipes"


def test_procedural_text_fits_every_item_and_is_deterministic() -> None:
    opts = parse_options({"models": "m", "variants": 2})
    for i in range(opts.total):
        item = opts.item(i)
        text = procedural_text(item)
        assert text == procedural_text(item) and 3 <= len(text) <= item.max_chars
        assert validate_answer(json.dumps({"text": text}), item) == text


def test_worst_case_bounds_any_tokenizer_and_max_tokens() -> None:
    item = _item()
    messages = build_messages(item, "v1")
    price = ModelPrice(Decimal("0.000001"), Decimal("0.000002"), "custom")
    bound = prompt_token_bound(messages)
    assert bound >= sum(len(m["content"].encode()) for m in messages)
    assert price.worst_case_nano(messages, 50) >= price.cost_nano(bound, 50)


def test_block_reservations_never_let_reserved_plus_spent_pass_the_cap(tmp_path: Path) -> None:
    store = SQLiteStateStore(tmp_path / "s.db")
    cap, worst = 1000, 30

    async def go() -> tuple[int, int]:
        a = BudgetGuard(store, "r", "a", cap, ttl_seconds=60, block_calls=8)
        b = BudgetGuard(store, "r", "b", cap, ttl_seconds=60, block_calls=8)
        granted = refused = 0
        for i in range(80):
            guard = a if i % 2 else b
            ticket = await guard.reserve(worst)
            state = store.budget_state("r")
            assert state.spent_nano + state.reserved_nano <= cap
            if ticket is None:
                refused += 1
                continue
            granted += 1
            await guard.settle(ticket, "m", 20)  # actual below the worst case
        await a.flush()
        await b.flush()
        return granted, refused

    granted, refused = asyncio.run(go())
    state = store.budget_state("r")
    assert state.reserved_nano == 0 and state.spent_nano == 20 * granted <= cap
    assert refused > 0 and granted >= (cap - 2 * 8 * worst) // 20
