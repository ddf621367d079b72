"""Batched printing: documents laid out and printed by one Chromium in fixed blocks.

Batches are fixed by the index alone, so a document's bytes never depend on the unit size
or on which documents a unit asked for: the indexes fall into blocks ``[k*BATCH,
(k+1)*BATCH)``, and the documents of one block that share a page size are printed
together by one ``page.pdf`` call. A unit that covers part of a block lays out the rest
of it too (printed for their neighbours' sake, never kept), up to the run's total: the
last block of a run is only as long as the run. ``pages`` batches stay in flight: while
the browser prints one, the caller's thread builds the records and HTML of the next.
A batch that fails as a whole is printed one document at a time
(:mod:`docfleet.render.browser`), so a broken document fails alone.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from docfleet.render.browser import Chromium, Job, Printed, RenderError
from docfleet.render.html import PrintedField

#: documents per block (and at most per ``page.pdf`` call). Part of what a document's
#: bytes depend on: changing it changes the PDFs (not the golden rows) of every run.
BATCH = 8
#: seconds to wait for one batch's print
RESULT_TIMEOUT = 120.0

_MEDIA_BOX = re.compile(rb"/MediaBox\s*\[\s*0\s+0\s+([0-9.]+)\s+([0-9.]+)\s*\]")


def media_box(pdf: bytes) -> tuple[float, float]:
    """The first page's MediaBox size in points (3 decimals), exactly as the PDF says:
    Chromium rounds a CSS page size to its own device units, so ``px * 0.75`` is not it.
    :class:`RenderError` if the PDF has none."""
    m = _MEDIA_BOX.search(pdf)
    if m is None:
        raise RenderError("the printed PDF has no MediaBox")
    return round(float(m.group(1)), 3), round(float(m.group(2)), 3)


@dataclass
class Prepared:
    """One document ready to print: its record, HTML, the fields it prints and its page
    count (what the template laid out)."""

    record: Any
    html: str
    printed: list[PrintedField]
    pages: int


@dataclass
class Pending:
    """A prepared document whose batch is at the browser."""

    doc: Prepared
    future: Future[list[Printed | RenderError | None]]
    slot: int  # this document's place in its batch

    def result(self) -> Printed:
        """The browser's answer for this document; :class:`RenderError` if it did not
        print."""
        result = self.future.result(timeout=RESULT_TIMEOUT)[self.slot]
        if not isinstance(result, Printed):
            record = self.doc.record
            raise RenderError(f"document {record.document} ({record.archetype}, "
                              f"{record.locale}) does not print: {result}")
        return result


def blocks(indexes: Sequence[int]) -> Iterator[list[int]]:
    """``indexes`` in order, grouped by their block of :data:`BATCH`."""
    block: list[int] = []
    for index in indexes:
        if block and index // BATCH != block[0] // BATCH:
            yield block
            block = []
        block.append(index)
    if block:
        yield block


def print_in_blocks(chromium: Chromium, prepare: Callable[[int], Prepared],
                    page_size: Callable[[Any], tuple[int, int]], indexes: Sequence[int],
                    total: int | None, in_flight: int) -> Generator[Pending, None, None]:
    """Submit ``indexes`` (ascending) block by block and yield each document's
    :class:`Pending` in index order once its batch is due: while more than ``in_flight``
    batches are at the browser, and at the end. ``prepare(index)`` builds a document
    (its neighbours too: printed, never yielded); ``page_size(record)`` its CSS px size.
    Closing the iterator early cancels the batches still in flight."""
    pending: deque[Pending] = deque()
    try:
        for block in blocks(indexes):
            wanted = set(block)
            first = block[0] - block[0] % BATCH
            batches: dict[tuple[int, int], list[tuple[Job, Prepared | None]]] = {}
            last = first + BATCH if total is None else min(first + BATCH, total)
            for index in range(first, max(last, block[-1] + 1)):
                doc = prepare(index)
                width, height = page_size(doc.record)
                keep = doc if index in wanted else None  # a neighbour: printed, not kept
                batches.setdefault((width, height), []).append(
                    (Job(doc.html, width, height, keep is not None), keep))
            fresh: list[Pending] = []
            for members in batches.values():
                if not any(keep for _, keep in members):
                    continue
                future = chromium.submit_batch([job for job, _ in members])
                fresh.extend(Pending(keep, future, slot)
                             for slot, (_, keep) in enumerate(members) if keep)
            pending.extend(sorted(fresh, key=lambda p: p.doc.record.document))
            while len({id(p.future) for p in pending}) > in_flight:
                yield pending.popleft()
        while pending:
            yield pending.popleft()
    finally:
        for left in pending:  # abandoned early: let in-flight pages finish quietly
            left.future.cancel()
