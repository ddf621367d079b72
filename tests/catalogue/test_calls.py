"""The completer against a real local HTTP server through real litellm: concurrency
bound, retries, hard timeouts, quarantine with cancellation, validation, fail-closed
pricing, and a ledger equal to the provider's own bill."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from docfleet.catalogue.budget import BudgetGuard
from docfleet.catalogue.complete import CallSettings, Entry, ItemCompleter
from docfleet.catalogue.llm import litellm_module
from docfleet.catalogue.plan import parse_options
from docfleet.state.sqlite.store import SQLiteStateStore
from support.fake_llm import FAKE_PRICE, FakeLLM

LOG = logging.getLogger("test.catalogue")


def run_items(
    tmp_path: Path, server: FakeLLM, options: dict[str, Any], *, concurrency: int = 4,
    call_timeout: float = 5.0, retries: int = 2, block_calls: int = 1, items: int | None = None,
) -> tuple[list[Entry], ItemCompleter, SQLiteStateStore]:
    opts = parse_options({"kinds": "tagline", "locales": "en-US,fr-FR,de-DE", "variants": 1,
                          **options})
    store = SQLiteStateStore(tmp_path / "state.db")

    async def go() -> tuple[list[Entry], ItemCompleter]:
        guard = BudgetGuard(store, "cat", "task-0", opts.cap_nano, ttl_seconds=60,
                            block_calls=block_calls)
        completer = ItemCompleter(
            store, "cat", opts, guard,
            CallSettings(concurrency=concurrency, call_timeout=call_timeout, retries=retries,
                         backoff_base=0.05, api_base=server.api_base, quarantine_refresh=0.2),
            LOG, litellm=litellm_module())
        n = opts.total if items is None else items
        entries = await completer.complete_items([opts.item(i) for i in range(n)])
        return entries, completer

    entries, completer = asyncio.run(go())
    return entries, completer, store


def priced(*models: str) -> dict[str, Any]:
    return {m: FAKE_PRICE for m in models}


def test_calls_in_flight_never_exceed_the_concurrency_bound(tmp_path: Path, llm: FakeLLM) -> None:
    llm.behave("fake-a", latency=0.25)
    litellm_module()  # warm the (slow, lazy) import: only the calls are timed
    started = time.monotonic()
    entries, _, store = run_items(tmp_path, llm, {"models": "openai/fake-a",
                                                  "prices": priced("openai/fake-a")},
                                  concurrency=4)
    elapsed = time.monotonic() - started
    assert len(entries) == 24 and all(e.source == "llm" for e in entries)
    assert llm.books.max_in_flight == 4  # the bound is reached and never passed
    assert elapsed >= 24 / 4 * 0.25 * 0.9
    # the ledger is the provider's own bill, to the nano-dollar
    assert store.total_spend("cat") == llm.books.total_bill
    assert store.budget_state("cat").reserved_nano == 0


def test_rate_limits_are_retried_and_every_answer_is_validated_text(
    tmp_path: Path, llm: FakeLLM
) -> None:
    llm.behave("fake-a", fail_first=3, marker="Zephyr")
    entries, completer, store = run_items(
        tmp_path, llm, {"models": "openai/fake-a", "prices": priced("openai/fake-a")},
        retries=3, items=6)
    assert all(e.source == "llm" and e.model == "openai/fake-a" for e in entries)
    assert completer.stats["error.rate_limit"] == 3
    assert llm.books.requests["fake-a"] == 9
    by_locale = {e.item.locale: e.text for e in entries}
    assert by_locale == {"en-US": "Zephyr supplies for your team",
                         "fr-FR": "Qualité Zephyr pour vos équipes",
                         "de-DE": "Zephyr Qualität für Ihr Team"}
    assert store.total_spend("cat") == llm.books.total_bill  # 429s cost nothing


def test_a_hanging_provider_times_out_and_the_fallback_pool_answers(
    tmp_path: Path, llm: FakeLLM
) -> None:
    llm.behave("fake-hang", hang=True)
    llm.behave("fake-b", marker="Quokka")
    litellm_module()  # warm the (slow, lazy) import: only the calls are timed
    started = time.monotonic()
    entries, completer, store = run_items(
        tmp_path, llm, {"models": "openai/fake-hang", "fallback": "openai/fake-b",
                        "prices": priced("openai/fake-hang", "openai/fake-b"),
                        "quarantine_after": 100},
        call_timeout=0.5, retries=1, items=3)
    assert time.monotonic() - started < 8
    assert all(e.model == "openai/fake-b" and "Quokka" in e.text for e in entries)
    assert completer.stats["error.timeout"] == 6  # 3 items x (1 try + 1 retry)
    # timed-out calls are settled at their worst case: the ledger never under-counts
    assert store.total_spend("cat") > llm.books.total_bill


def test_quarantine_after_an_empty_streak_cancels_in_flight_calls(
    tmp_path: Path, llm: FakeLLM
) -> None:
    llm.behave("fake-a", empty=True, latencies=[0.05, 0.05, *[6.0] * 10])
    llm.behave("fake-b", marker="Quokka")
    litellm_module()  # warm the (slow, lazy) import: only the calls are timed
    started = time.monotonic()
    entries, completer, store = run_items(
        tmp_path, llm, {"models": "openai/fake-a", "fallback": "openai/fake-b",
                        "prices": priced("openai/fake-a", "openai/fake-b"),
                        "quarantine_after": 2},
        concurrency=8, call_timeout=10, items=8)
    assert time.monotonic() - started < 5  # the 6 slow calls were cancelled, not awaited
    assert store.quarantined_providers("cat") == {"openai/fake-a"}
    assert all(e.model == "openai/fake-b" for e in entries)
    assert completer.stats["outcome.cancelled"] == 6
    # a call cancelled before its request was sent never reaches the server
    assert 2 <= llm.books.requests["fake-a"] <= 8


def test_rejected_answers_become_procedural_with_the_reason(tmp_path: Path, llm: FakeLLM) -> None:
    llm.behave("fake-pii", pii=True)
    entries, _, _ = run_items(tmp_path, llm, {"models": "openai/fake-pii",
                                              "prices": priced("openai/fake-pii")}, items=3)
    assert {(e.source, e.reason) for e in entries} == {("procedural", "invalid:pii")}
    assert all("555" not in e.text for e in entries)


def test_an_unpriced_model_is_never_called(tmp_path: Path, llm: FakeLLM) -> None:
    entries, _, store = run_items(tmp_path, llm, {"models": "openai/no-such-priced-model"},
                                  items=3)
    assert {(e.source, e.reason) for e in entries} == {("procedural", "no_price")}
    assert llm.books.requests == {}
    assert store.total_spend("cat") == 0


def test_items_past_the_cap_are_procedural_and_the_bill_stays_under_it(
    tmp_path: Path, llm: FakeLLM
) -> None:
    for block in (1, 4):
        llm.reset_books()
        path = tmp_path / f"b{block}"
        path.mkdir()
        entries, _, store = run_items(
            path, llm, {"models": "openai/fake-a", "prices": priced("openai/fake-a"),
                        "budget_usd": "0.003", "max_tokens": 60}, concurrency=8,
            block_calls=block)
        cap = 3_000_000
        llm_items = [e for e in entries if e.source == "llm"]
        refused = [e for e in entries if e.reason == "budget"]
        assert llm_items and refused and len(llm_items) + len(refused) == len(entries)
        assert llm.books.total_bill <= cap
        assert store.total_spend("cat") == llm.books.total_bill
        assert store.budget_state("cat").reserved_nano == 0


def test_a_model_litellm_prices_is_settled_with_completion_cost(
    tmp_path: Path, llm: FakeLLM
) -> None:
    """No custom price: litellm's own table prices the worst case, and its completion_cost
    settles each call (the server bills with the same table: 150 / 600 nano per token)."""
    llm.behave("gpt-4o-mini", price_in=150, price_out=600, completion_tokens=25)
    entries, completer, store = run_items(
        tmp_path, llm, {"models": "openai/gpt-4o-mini", "budget_usd": "1"}, items=6)
    assert completer.prices["openai/gpt-4o-mini"].source == "litellm"  # type: ignore[union-attr]
    assert all(e.source == "llm" for e in entries)
    # completion_cost is a float in dollars: ceil to nano-dollars, at most 1 nano per call
    assert 0 <= store.total_spend("cat") - llm.books.total_bill <= len(entries)
