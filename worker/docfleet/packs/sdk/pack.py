""":class:`TemplatedPack`: a whole pack made of a :class:`~.session.DocumentSteps`.

A subclass sets ``name``, ``archetypes``, ``steps`` and ``max_lines`` and gets every member
of the pack protocol: its golden tables (its own, the document table first, then the
shared page tables, each with its role), the shared run options (:mod:`.options`), the
preflight check of the browser, its templates from its own package's ``templates/``
folder (:mod:`.templates`) and one ``TemplatedSession`` per task, opened with the task's
``chromium_path`` and ``render_pages`` from its context. A pack with options of its own
overrides :meth:`TemplatedPack.parse` (the invoice pack does).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from docfleet.core.errors import ConfigError
from docfleet.packs.base import DocumentSource, GoldenTables, Pack, PackContext
from docfleet.packs.sdk.options import PackOptions, parse_pack_options
from docfleet.packs.sdk.session import DocumentSteps, TemplatedSession, ink_truth
from docfleet.packs.sdk.templates import pack_loader, pack_templates
from docfleet.render.html import Templates

if TYPE_CHECKING:
    import pyarrow as pa
    from jinja2 import BaseLoader

    from docfleet.render.browser import Chromium


class TemplatedPack(Pack):
    """A pack of records rendered through its own templates (see the module docstring).
    ``split``: the document table's column that holds the document's split, if the pack
    assigns splits (declared only for the content versions whose table has it)."""

    archetypes: ClassVar[tuple[str, ...]]
    steps: ClassVar[DocumentSteps]
    max_lines: ClassVar[int]
    split: ClassVar[str | None] = None
    #: the content versions the pack can print (option ``content``), oldest first
    content_versions: ClassVar[tuple[int, ...]] = (1,)

    def parse(self, options: Mapping[str, Any]) -> Any:
        """The parsed options (a :class:`~.options.PackOptions` unless overridden: the
        session reads ``format``, the source what it needs)."""
        return parse_pack_options(self.name, options, self.archetypes, self.max_lines,
                                  self.content_versions)

    def tables(self, options: Mapping[str, Any]) -> GoldenTables:
        from docfleet.packs.sdk.schema import (
            layout_tables,  # lazy: start-up (pyarrow: not for the launcher)
        )

        content = self.parse(options).content
        own = {**self.steps.tables, **self.content_tables(content)}
        document = next(iter(own))
        # a content version before the pack's split column has none
        split = self.split if self.split in own[document].names else None
        shared = layout_tables(ink_truth(self.steps, content))
        return GoldenTables({**own, **shared}, document=document,
                            roles={table: table for table in shared}, split=split)

    def content_tables(self, content: int) -> Mapping[str, pa.Schema]:
        """The pack's own tables whose schema content version ``content`` changes (a
        document table with columns of its own), replacing the steps' ones; none by
        default."""
        return {}

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The normalised options of a run being planned: without ``content``, the pack's
        newest content version (a stored run without it stays version 1)."""
        if len(self.content_versions) > 1 and options.get("content") in (None, ""):
            options = {**options, "content": self.content_versions[-1]}
        parsed: PackOptions = self.parse(options)
        return parsed.to_dict()

    def source(self, options: Mapping[str, Any]) -> DocumentSource[Any]:
        """The record source for (normalised) run ``options``."""
        return self.steps.source(self.parse(options))

    def context(self, record: Any) -> dict[str, Any]:
        """The template context of ``record``: every printed golden value included."""
        return self.steps.context(record)

    @classmethod
    def package(cls) -> str:
        """The package whose ``templates/`` folder holds the pack's templates: the
        package of the pack's class."""
        module = sys.modules[cls.__module__]
        return module.__package__ or cls.__module__.rpartition(".")[0]

    def template_loader(self) -> BaseLoader:
        return pack_loader(self.package())

    def templates(self) -> Templates:
        """The pack's templates (one Jinja environment per process)."""
        return pack_templates(self.package())

    def preflight(self, options: Mapping[str, Any], context: PackContext) -> None:
        """For PDFs: ``context.settings.chromium_path`` is an executable
        (:class:`ConfigError`)."""
        import os
        import shutil

        if self.parse(options).format == "pdf":
            path = context.settings.chromium_path
            found = shutil.which(path)
            if not found or not os.access(found, os.X_OK):
                raise ConfigError(f"no Chromium executable at {path}",
                                  "install Debian's chromium package or set "
                                  "DOCFLEET_CHROMIUM_PATH to it")

    def session(self, options: Mapping[str, Any], chromium_path: str, pages: int,
                chromium: Chromium | None = None, log: logging.Logger | None = None
                ) -> TemplatedSession:
        """A session outside a worker (tests, benchmarks); ``chromium`` is borrowed."""
        return TemplatedSession(self.steps, self.templates(), self.parse(options),
                                chromium_path, pages, chromium, log)

    def open(self, options: Mapping[str, Any], context: PackContext) -> TemplatedSession:
        return self.session(options, context.settings.chromium_path,
                            context.settings.render_pages, log=context.log)
