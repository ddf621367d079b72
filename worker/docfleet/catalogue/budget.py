"""Prices and the fleet budget guard: reserve the worst case in the state store before a
call, settle to the actual cost after it.

Guarantee. Every call is preceded by a conditional reservation that fails when
spent + reserved + worst-case > cap, and the worst case bounds the call's real cost
(prompt tokens are bounded by the prompt's UTF-8 bytes plus framing, completion tokens by
``max_tokens``, which the provider enforces). So the fleet's recorded spend never passes
the cap, except by:

1. a provider billing more than it was asked to (completion past ``max_tokens``): that
   excess is recorded as spent and stops later reservations;
2. a reservation that expired before its call settled: only a task frozen (SIGSTOP, VM
   pause) longer than the reservation TTL, since the hard per-call timeout is shorter
   than the TTL;
3. a task killed (SIGKILL, OOM, preemption) while its calls were in flight: the provider
   may still bill those calls, but the task never settles them, and their reservations
   are released at expiry so the budget is not shrunk for good.

Cases 2 and 3 are bounded per frozen or killed task by the calls it had not settled:
overshoot <= (frozen or killed tasks) x concurrency x the largest worst-case call; with
block reservations, (block size + concurrency) x the largest worst-case call, since a
block's calls are settled in the store together. Without such a task, and with a
provider that honours ``max_tokens``, the recorded spend and the provider's bill stay
<= the cap.

A timed-out or cancelled call is settled at its full worst case (the provider may bill
it); a refused call (429, connection error) at zero.

Block reservations (``block_calls`` > 1) reserve several worst cases at once and spend
from them locally, so a store with a low write rate (Firestore: about one sustained write
per second per document) sees one reservation write per block, not per call. The block is
itself a conditional reservation, so reserved + spent stays within the cap fleet-wide;
the unused remainder returns at settle.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from typing import Any

from docfleet.catalogue.plan import Price
from docfleet.state.base import LedgerStore

NANO = Decimal(1_000_000_000)
#: tokens of chat framing allowed per message and per request, above the content bytes
FRAMING_PER_MESSAGE, FRAMING_PER_REQUEST = 8, 16


def ceil_nano(usd: Decimal) -> int:
    return int((usd * NANO).to_integral_value(rounding=ROUND_CEILING))


def prompt_token_bound(messages: list[dict[str, str]]) -> int:
    """An upper bound on prompt tokens for any BPE tokenizer: each token covers at least
    one byte, plus framing."""
    return sum(len(m["content"].encode()) + FRAMING_PER_MESSAGE for m in messages) \
        + FRAMING_PER_REQUEST


@dataclass(frozen=True)
class ModelPrice:
    """Per-token prices of one model; ``source`` is ``custom`` or ``litellm``."""

    input_per_token_usd: Decimal
    output_per_token_usd: Decimal
    source: str

    def cost_nano(self, prompt_tokens: int, completion_tokens: int) -> int:
        return ceil_nano(self.input_per_token_usd * prompt_tokens
                         + self.output_per_token_usd * completion_tokens)

    def worst_case_nano(self, messages: list[dict[str, str]], max_tokens: int) -> int:
        return self.cost_nano(prompt_token_bound(messages), max_tokens)


def resolve_price(model: str, custom: dict[str, Price], litellm: Any | None) -> ModelPrice | None:
    """The model's price: configured custom prices first, else litellm's table (if the
    module is given), else ``None`` — and an unpriced model is never called."""
    if model in custom:
        p = custom[model]
        return ModelPrice(p.input_per_mtok / 1_000_000, p.output_per_mtok / 1_000_000, "custom")
    if litellm is None:
        return None
    info = None
    for name in (model, model.split("/", 1)[-1]):
        info = litellm.model_cost.get(name)
        if info:
            break
    if not info or info.get("input_cost_per_token") is None \
            or info.get("output_cost_per_token") is None:
        return None
    return ModelPrice(Decimal(str(info["input_cost_per_token"])),
                      Decimal(str(info["output_cost_per_token"])), "litellm")


@dataclass
class _Block:
    rid: str
    size: int
    remaining: int
    created: float
    outstanding: int = 0
    closing: bool = False
    spend: dict[str, int] = field(default_factory=dict)


@dataclass
class Ticket:
    """One call's hold on the budget: ``nano`` worst case inside reservation ``rid``."""

    rid: str
    nano: int
    block: _Block | None = None


class BudgetGuard:
    """The task's side of the fleet budget. Coroutines run on one event loop; store calls
    go to threads. With ``cap_nano=None`` nothing is reserved but spend is still recorded.

    :meth:`reserve` returns ``None`` when the cap would be passed (the caller degrades the
    item to procedural); it never raises for a refusal. Store errors propagate."""

    def __init__(
        self, store: LedgerStore, run_id: str, owner: str, cap_nano: int | None, *,
        ttl_seconds: float, block_calls: int = 1, heal_interval: float = 2.0,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.owner = owner
        self.cap_nano = cap_nano
        self.ttl = ttl_seconds
        self.block_calls = max(1, block_calls)
        self.heal_interval = heal_interval
        self._ids = itertools.count()
        self._salt = f"{time.time_ns():x}"
        self._block: _Block | None = None
        self._lock = asyncio.Lock()
        self._healed = 0.0
        self.refused = 0

    def _rid(self) -> str:
        return f"{self.owner}~{self._salt}~{next(self._ids)}"

    async def _reserve_store(self, nano: int) -> str | None:
        assert self.cap_nano is not None
        rid = self._rid()
        now = time.time()
        if await asyncio.to_thread(self.store.reserve_budget, self.run_id, rid, nano,
                                   self.cap_nano, now + self.ttl):
            return rid
        if time.monotonic() - self._healed >= self.heal_interval:
            # a killed peer's hold may be what is in the way: release expired ones, retry
            self._healed = time.monotonic()
            released = await asyncio.to_thread(
                self.store.release_expired_reservations, self.run_id, now)
            if released and await asyncio.to_thread(
                self.store.reserve_budget, self.run_id, rid, nano, self.cap_nano,
                now + self.ttl,
            ):
                return rid
        return None

    async def reserve(self, worst_nano: int) -> Ticket | None:
        """Hold ``worst_nano`` for one call; ``None`` if the fleet's cap would be passed."""
        if self.cap_nano is None:
            return Ticket(self._rid(), worst_nano)
        if self.block_calls == 1:
            rid = await self._reserve_store(worst_nano)
            if rid is None:
                self.refused += 1
                return None
            return Ticket(rid, worst_nano)
        async with self._lock:
            block = self._block
            stale = block is not None and time.monotonic() - block.created > self.ttl / 2
            if block is None or block.remaining < worst_nano or stale:
                if block is not None:
                    await self._close(block)
                self._block = None
                for size in (worst_nano * self.block_calls, worst_nano):
                    rid = await self._reserve_store(size)
                    if rid is not None:
                        self._block = _Block(rid, size, size, time.monotonic())
                        break
                block = self._block
                if block is None:
                    self.refused += 1
                    return None
            block.remaining -= worst_nano
            block.outstanding += 1
            return Ticket(block.rid, worst_nano, block)

    async def settle(self, ticket: Ticket, model: str, actual_nano: int) -> None:
        """Record ``actual_nano`` spent by ``model`` and release the rest of the hold."""
        actual = max(0, int(actual_nano))
        if self.cap_nano is None:
            if actual:
                await asyncio.to_thread(self.store.add_spend, self.run_id, model, actual)
            return
        block = ticket.block
        if block is None:
            await asyncio.to_thread(self.store.settle_reservation, self.run_id, ticket.rid,
                                    {model: actual})
            return
        async with self._lock:
            block.spend[model] = block.spend.get(model, 0) + actual
            block.outstanding -= 1
            block.remaining += max(0, ticket.nano - actual)
            if block.closing and block.outstanding == 0:
                await self._settle_block(block)

    async def _close(self, block: _Block) -> None:
        block.closing = True
        if block.outstanding == 0:
            await self._settle_block(block)

    async def _settle_block(self, block: _Block) -> None:
        await asyncio.to_thread(self.store.settle_reservation, self.run_id, block.rid,
                                {m: v for m, v in block.spend.items() if v} or {})

    async def flush(self) -> None:
        """Settle the current block (at the end of a unit)."""
        async with self._lock:
            if self._block is not None:
                await self._close(self._block)
                self._block = None


def worst_case_calls(cap_nano: int, worst_nano: int) -> int:
    return math.floor(cap_nano / worst_nano) if worst_nano else 0
