"""Completing a unit's items: async calls bounded by a semaphore, stable routing with a
fallback pool, retries with backoff, a quarantine shared through the state store, and
the budget guard around every HTTP attempt."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from docfleet.catalogue.budget import BudgetGuard, ModelPrice, resolve_price
from docfleet.catalogue.llm import Answer, CallError, complete
from docfleet.catalogue.plan import CatalogueOptions, Item
from docfleet.catalogue.procedural import procedural_text
from docfleet.catalogue.prompts import build_messages
from docfleet.catalogue.routing import Router
from docfleet.catalogue.validate import Rejected, validate_answer
from docfleet.state.base import LedgerStore

PROCEDURAL = "procedural"


@dataclass
class Entry:
    """One finished item, with its provenance."""

    item: Item
    text: str
    source: str  # llm | procedural
    model: str  # the model that wrote it, or "procedural"
    reason: str  # ok | budget | no_price | quarantined | empty | failed | invalid:<why>
    spend_nano: int
    attempts: int

    def row(self, prompt_version: str) -> dict[str, Any]:
        it = self.item
        return {
            "item": it.index, "kind": it.kind, "line": it.line, "locale": it.locale,
            "variant": it.variant, "text": self.text, "source": self.source,
            "model": self.model, "reason": self.reason, "spend_nano": self.spend_nano,
            "attempts": self.attempts, "prompt_version": prompt_version,
        }


@dataclass
class _Outcome:
    status: str  # ok | empty | failed | invalid | budget | no_price | cancelled
    text: str | None = None
    reason: str = ""
    spend: int = 0
    attempts: int = 0


@dataclass(frozen=True)
class CallSettings:
    concurrency: int = 8
    call_timeout: float = 30.0
    retries: int = 3
    backoff_base: float = 0.25
    backoff_max: float = 4.0
    api_base: str | None = None
    quarantine_refresh: float = 2.0


class ItemCompleter:
    """Completes items for one task. One instance per task, used from one event loop.

    Contracts: at most ``concurrency`` HTTP calls in flight (a semaphore around each
    attempt); every attempt holds a budget reservation for its worst case while in flight;
    a refused reservation or an unpriced model makes the item procedural (never raises);
    a provider with ``quarantine_after`` empty/failed answers in a row is quarantined in
    the store and its in-flight calls are cancelled (their items move to the next model).
    Store errors propagate (the unit fails and is retried)."""

    def __init__(
        self, store: LedgerStore, run_id: str, options: CatalogueOptions, guard: BudgetGuard,
        settings: CallSettings, log: logging.Logger,
        call: Callable[..., Any] = complete, litellm: Any | None = None,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.options = options
        self.guard = guard
        self.settings = settings
        self.log = log
        self.call = call
        self.router = Router(options.models, options.fallback)
        self.prices: dict[str, ModelPrice | None] = {
            m: resolve_price(m, options.prices, litellm) for m in self.router.models
        }
        self.quarantined: set[str] = set()
        self._streak: dict[str, int] = defaultdict(int)
        self._inflight: dict[str, set[asyncio.Task[Answer]]] = defaultdict(set)
        self._sem: asyncio.Semaphore | None = None
        self._refreshed = 0.0
        self.stats: dict[str, int] = defaultdict(int)

    # -- quarantine -------------------------------------------------------------------
    async def refresh_quarantine(self, force: bool = False) -> None:
        """Re-read the run's quarantine set (peers' decisions) and cancel calls to it."""
        if not force and time.monotonic() - self._refreshed < self.settings.quarantine_refresh:
            return
        self._refreshed = time.monotonic()
        found = await asyncio.to_thread(self.store.quarantined_providers, self.run_id)
        for model in found - self.quarantined:
            self.log.warning("provider %s is quarantined for run %s; routing around it",
                             model, self.run_id,
                             extra={"event": "catalogue.quarantine.seen", "model": model})
            self._quarantine_local(model)

    def _quarantine_local(self, model: str) -> None:
        self.quarantined.add(model)
        for task in list(self._inflight.get(model, ())):
            task.cancel()

    async def _note(self, model: str, ok: bool) -> None:
        if ok:
            self._streak[model] = 0
            return
        self._streak[model] += 1
        if self._streak[model] >= self.options.quarantine_after and model not in self.quarantined:
            self.log.warning("quarantining %s after %d empty or failed answers in a row",
                             model, self._streak[model],
                             extra={"event": "catalogue.quarantine", "model": model})
            self._quarantine_local(model)
            await asyncio.to_thread(self.store.quarantine_providers, self.run_id, [model])

    # -- items ------------------------------------------------------------------------
    async def complete_items(self, items: Sequence[Item], stop: Any = None) -> list[Entry]:
        """Complete ``items`` with at most ``concurrency`` calls in flight; return entries
        in the order of ``items``. If ``stop`` (an Event) is set, pending items are
        cancelled and ``asyncio.CancelledError`` is raised."""
        self._sem = self._sem or asyncio.Semaphore(self.settings.concurrency)
        await self.refresh_quarantine(force=True)
        tasks = [asyncio.ensure_future(self.complete_item(it)) for it in items]
        watcher = asyncio.ensure_future(self._watch(stop, tasks))
        try:
            return list(await asyncio.gather(*tasks))
        finally:
            watcher.cancel()
            for t in tasks:
                t.cancel()
            # let cancelled items settle their reservations before the loop stops
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.guard.flush()

    async def _watch(self, stop: Any, tasks: Sequence[asyncio.Future[Entry]]) -> None:
        while True:
            await asyncio.sleep(0.2)
            if stop is not None and stop.is_set():
                for t in tasks:
                    t.cancel()
                return
            await self.refresh_quarantine()

    async def complete_item(self, item: Item) -> Entry:
        """One item through the routing order: an answer, or procedural text with why."""
        tried: list[str] = []
        spend = attempts = 0
        reason = "quarantined"
        while len(tried) < self.options.max_models_per_item:
            candidates = self.router.candidates(item.key, self.quarantined | set(tried))
            if not candidates:
                break
            model = candidates[0]
            tried.append(model)
            out = await self._try_model(model, item)
            spend += out.spend
            attempts += out.attempts
            self.stats[f"outcome.{out.status}"] += 1
            if out.status == "ok":
                assert out.text is not None
                return Entry(item, out.text, "llm", model, "ok", spend, attempts)
            reason = out.reason or out.status
            if out.status in ("budget", "invalid"):
                break  # not the provider's fault: no second model
        return Entry(item, procedural_text(item), PROCEDURAL, PROCEDURAL, reason, spend,
                     attempts)

    def _backoff(self, attempt: int) -> float:
        base = min(self.settings.backoff_max, self.settings.backoff_base * 2**attempt)
        return base * (0.5 + random.random() / 2)

    async def _try_model(self, model: str, item: Item) -> _Outcome:
        price = self.prices.get(model)
        if price is None:
            return _Outcome("no_price", reason="no_price")
        messages = build_messages(item, self.options.prompt_version)
        worst = price.worst_case_nano(messages, self.options.max_tokens)
        out = _Outcome("failed")
        assert self._sem is not None
        for attempt in range(self.settings.retries + 1):
            if model in self.quarantined:
                out.status, out.reason = "cancelled", "quarantined"
                return out
            async with self._sem:
                ticket = await self.guard.reserve(worst)
                if ticket is None:
                    out.status, out.reason = "budget", "budget"
                    return out
                out.attempts += 1
                actual = worst
                task = asyncio.ensure_future(self.call(
                    model, messages, max_tokens=self.options.max_tokens,
                    timeout=self.settings.call_timeout, api_base=self.settings.api_base))
                self._inflight[model].add(task)
                error: CallError | None = None
                answer: Answer | None = None
                try:
                    answer = await task
                except CallError as exc:
                    error = exc
                    if not exc.billable:
                        actual = 0
                except asyncio.CancelledError:
                    current = asyncio.current_task()
                    if current is not None and current.cancelling():
                        await asyncio.shield(self.guard.settle(ticket, model, worst))
                        raise
                    # cancelled by quarantine: settle at the worst case, move on
                    await self.guard.settle(ticket, model, worst)
                    out.spend += worst
                    out.status, out.reason = "cancelled", "quarantined"
                    return out
                finally:
                    self._inflight[model].discard(task)
                if answer is not None:
                    actual = self._cost(price, answer, worst)
                await self.guard.settle(ticket, model, actual)
                out.spend += actual
            if error is not None:
                self.stats[f"error.{error.kind}"] += 1
                out.reason = error.kind
                if error.retryable and attempt < self.settings.retries:
                    await asyncio.sleep(self._backoff(attempt))
                    continue
                await self._note(model, ok=False)
                out.status = "failed"
                return out
            assert answer is not None
            try:
                out.text = validate_answer(answer.content, item)
            except Rejected as rej:
                if rej.reason == "empty":
                    await self._note(model, ok=False)
                    out.status, out.reason = "empty", "empty"
                    return out
                await self._note(model, ok=True)  # the provider answered; the text is bad
                out.status, out.reason = "invalid", f"invalid:{rej.reason}"
                return out
            await self._note(model, ok=True)
            out.status, out.reason = "ok", "ok"
            return out
        return out

    @staticmethod
    def _cost(price: ModelPrice, answer: Answer, worst: int) -> int:
        """The call's actual cost: custom prices x reported usage, or litellm's
        completion_cost; the worst case when the provider reported no usage."""
        if answer.prompt_tokens == 0 and answer.completion_tokens == 0:
            return worst
        if price.source == "litellm":
            cost = answer.litellm_cost_nano()
            if cost is not None:
                return cost
        return price.cost_nano(answer.prompt_tokens, answer.completion_tokens)
