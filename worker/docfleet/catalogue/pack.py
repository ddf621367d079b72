"""The ``catalogue`` pack: a run of kind ``catalogue`` whose documents are catalogue
items. Its session makes the LLM calls for a unit's items and returns one provenance row
per item in table ``entries``; the kernel writes shards, parts and the root manifest as
for any run."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa

from docfleet.catalogue.plan import CatalogueOptions, parse_options
from docfleet.core.errors import ConfigError
from docfleet.packs.base import GoldenTables, Pack, PackContext, RenderedDocument

TABLE = "entries"
SCHEMA = pa.schema([
    pa.field("item", pa.int64(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),
    pa.field("line", pa.string(), nullable=False),
    pa.field("locale", pa.string(), nullable=False),
    pa.field("variant", pa.int32(), nullable=False),
    pa.field("text", pa.string(), nullable=False),
    pa.field("source", pa.string(), nullable=False),
    pa.field("model", pa.string(), nullable=False),
    pa.field("reason", pa.string(), nullable=False),
    pa.field("spend_nano", pa.int64(), nullable=False),
    pa.field("attempts", pa.int32(), nullable=False),
    pa.field("prompt_version", pa.string(), nullable=False),
])


class CatalogueSession:
    """One task's LLM session: a persistent event loop (litellm's async clients outlive
    one unit), the budget guard and the completer."""

    def __init__(self, options: CatalogueOptions, context: PackContext) -> None:
        from docfleet.catalogue.budget import BudgetGuard  # lazy: start-up (litellm)
        from docfleet.catalogue.complete import (  # lazy: start-up (litellm)
            CallSettings,
            ItemCompleter,
        )
        from docfleet.catalogue.llm import litellm_module  # lazy: start-up (litellm)

        task = context.pack_settings  # CatalogueSettings (CataloguePack.load_settings)
        self.options = options
        self.context = context
        self.loop = asyncio.new_event_loop()
        litellm = litellm_module()
        self.guard = self.loop.run_until_complete(self._make_guard(BudgetGuard, task))
        self.completer = ItemCompleter(
            context.store, context.run_id, options, self.guard,
            CallSettings(concurrency=task.concurrency, call_timeout=task.call_timeout,
                         retries=task.retries, backoff_base=task.backoff_base,
                         api_base=task.api_base, quarantine_refresh=task.quarantine_refresh),
            context.log, litellm=litellm,
        )
        unpriced = [m for m, p in self.completer.prices.items() if p is None]
        if unpriced:
            context.log.warning("no price for %s: those models are never called (configure "
                                "--price MODEL=IN,OUT)", ", ".join(unpriced),
                                extra={"event": "catalogue.no_price"})

    async def _make_guard(self, cls: Any, task: Any) -> Any:
        blocks = task.blocks_for(self.context.store.uri)
        return cls(self.context.store, self.context.run_id, self.context.owner,
                   self.options.cap_nano, ttl_seconds=task.ttl_for(blocks), block_calls=blocks)

    def render(self, run_id: str, indexes: Sequence[int], total: int | None = None
               ) -> Iterator[RenderedDocument]:
        items = [self.options.item(i) for i in indexes]
        try:
            entries = self.loop.run_until_complete(
                self.completer.complete_items(items, self.context.stop))
        except asyncio.CancelledError:
            return  # shutdown: yield nothing; the kernel releases the unit
        llm = sum(e.source == "llm" for e in entries)
        self.context.log.info(
            "catalogue items %d-%d: %d by models, %d procedural, %d nano-USD",
            indexes[0], indexes[-1], llm, len(entries) - llm,
            sum(e.spend_nano for e in entries),
            extra={"event": "catalogue.unit", "llm": llm, "procedural": len(entries) - llm,
                   "reasons": _count(e.reason for e in entries)})
        for entry in entries:
            yield RenderedDocument(index=entry.item.index, files={},
                                   rows={TABLE: [entry.row(self.options.prompt_version)]})

    def close(self) -> None:
        if not self.loop.is_closed():
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


class CataloguePack(Pack):
    """``--pack catalogue``; runs of kind ``catalogue``; its session takes the task's
    state store (the shared budget and quarantine)."""

    name = "catalogue"
    kind = "catalogue"
    uses_store = True

    def tables(self, options: Mapping[str, Any]) -> GoldenTables:
        return GoldenTables({TABLE: SCHEMA}, document=TABLE, key="item")

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return parse_options(options).to_dict()

    def load_settings(self, environ: Mapping[str, str], overrides: Mapping[str, Any]
                      ) -> Any:
        """The task-local ``DOCFLEET_CATALOGUE_*`` settings (a
        :class:`~docfleet.catalogue.settings.CatalogueSettings`) with a command's flags
        (``catalogue build --concurrency 16``) on top; :class:`ConfigError` for a bad one,
        before a run is planned."""
        from docfleet.catalogue.settings import CatalogueSettings  # lazy: start-up (litellm)

        prefix = "DOCFLEET_CATALOGUE_"
        given = {k[len(prefix):].lower(): v for k, v in environ.items() if k.startswith(prefix)}
        return CatalogueSettings.load(**{**given, **overrides})

    def open(self, options: Mapping[str, Any], context: PackContext) -> CatalogueSession:
        if context.store is None:
            raise ConfigError("the catalogue pack needs the worker's state store (for its "
                              "budget)", "run it with docfleet work / catalogue build")
        return CatalogueSession(parse_options(options), context)
