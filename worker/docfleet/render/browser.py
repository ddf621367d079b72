"""One Chromium per task, driven by Playwright, with a pool of reused pages.

Playwright's async API runs on a private event loop in a background thread;
:meth:`Chromium.submit_batch` hands it a batch of HTML documents and returns a
``concurrent.futures.Future``, so the caller (a pack session) keeps ``pages`` batches in
flight while it builds the next records and HTML on its own thread. Chromium is Debian's
(``executable_path``: ``chromium-headless-shell`` by default, full ``chromium`` works the
same); ``playwright install`` is never needed.

A batch is printed by one ``page.pdf`` call: each page is loaded once with an empty
skeleton, and every batch replaces its body with one shadow root per document (each
document's own styles stay scoped to it; its ``html``/``body`` rules apply to the shadow
host), separated by page breaks. The boxes of every document come back as one JSON string
(parsing it in Python is far cheaper than Playwright's object conversion; words and lines
as columns, a third less for the renderer, browser, driver and task to pass on), and the PDF is
split into one PDF per document (:func:`docfleet.render.pdf.split_pdf`). A batch that
fails is printed again, then one document at a time, so a broken document fails alone.

A page is replaced by a fresh one (its own browser context, so a new renderer process)
once it has printed ``recycle`` documents: a reused renderer's memory grows with every
document it lays out (about 40 MiB per 1,000 invoices each, measured by
``bench/memory.py``), a fresh one starts from the same state, so the bytes are the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from docfleet.core.errors import ConfigError
from docfleet.render.layout import EXTRACT_JS, Layout, parse_layout
from docfleet.render.pdf import split_pdf

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--font-render-hinting=none",
    # the compositor on the renderer's main thread: a page here is laid out, measured and
    # printed, never animated, and the compositor thread's frames and hand-offs cost
    # ~10 % of a clean page's whole-tree CPU (bench/documents.py); same PDF bytes
    "--disable-threaded-compositing",
    "--disable-threaded-animation",
    # the network service in the browser process: a page here loads nothing over the
    # network (its HTML is set, its fonts are local), and its own utility process cost
    # every task's start a process (~0.08 s of CPU, bench/documents.py --fixed-by-process)
    "--enable-features=NetworkServiceInProcess2",
)

#: documents a page prints before a fresh page takes its place (0: never); at ~50 ms of
#: CPU a document, a new page's start (~0.1 s) is well under 1 % of what it replaces
RECYCLE_DOCUMENTS = 400

#: loaded once per page; a batch only replaces the body
SKELETON = ('<!doctype html><html><head><meta charset="utf-8"><style id="docfleet-batch">'
            '</style></head><body></body></html>')

#: Run in the page with {docs, extract, width, height}: lays out every document in a
#: shadow root of its own, waits for fonts, and returns one JSON string
#: [{pages, title, layout|null}, ...] (layout only where ``extract`` is true).
BATCH_JS = r"""
async ({docs, extract, width, height}) => {
  const EXTRACT = """ + EXTRACT_JS.strip() + r""";
  document.getElementById('docfleet-batch').textContent =
    `@page { size: ${width}px ${height}px; margin: 0; }
     html, body { margin: 0; padding: 0; background: #fff; }
     .docfleet-doc { display: block; }
     .docfleet-doc + .docfleet-doc { break-before: page; }`;
  document.body.replaceChildren();
  const parser = new DOMParser();
  // a document's html/body/:root rules style its shadow host (nested @media rules too)
  const rootOrBody = /(?<![\w.#:[-])(html|body)(?![\w-])|:root\b/g;
  const toHost = (rules) => {
    for (const rule of Array.from(rules)) {
      if (rule.selectorText && rule.selectorText.match(rootOrBody)) {
        rule.selectorText = rule.selectorText.replace(rootOrBody, ':host');
      }
      if (rule.cssRules) toHost(rule.cssRules);
    }
  };
  const roots = [];
  const titles = [];
  for (const html of docs) {
    const parsed = parser.parseFromString(html, 'text/html');
    const host = document.createElement('div');
    host.className = 'docfleet-doc';
    if (parsed.documentElement.lang) host.lang = parsed.documentElement.lang;
    // its text direction too: an rtl document laid out ltr reorders its words
    if (parsed.documentElement.dir) host.dir = parsed.documentElement.dir;
    const root = host.attachShadow({mode: 'open'});
    document.body.appendChild(host);
    for (const style of Array.from(parsed.querySelectorAll('style'))) {
      root.appendChild(style);
      if (style.sheet) toHost(style.sheet.cssRules);
    }
    root.append(...Array.from(parsed.body.childNodes));
    roots.push(root);
    titles.push(parsed.title);
  }
  await document.fonts.ready;
  return JSON.stringify(roots.map((root, i) => ({
    pages: root.querySelectorAll('div.page').length,
    title: titles[i],
    layout: extract[i] ? EXTRACT(root) : null,
  })));
}
"""


class RenderError(RuntimeError):
    """A document that would not print as its golden truth says (layout fault)."""


@dataclass(frozen=True)
class Printed:
    pdf: bytes | None  # None when only the layout was asked for
    layout: Layout


@dataclass(frozen=True)
class Job:
    """One document of a batch: its HTML and page size in CSS px. ``wanted=False``: laid
    out and printed only so that its neighbours get their bytes (no boxes, no PDF)."""

    html: str
    width: int
    height: int
    wanted: bool = True


class Chromium:
    """A started browser with up to ``pages`` reusable pages (one at start, another only
    when a batch finds every open page busy), each replaced after ``recycle`` documents
    (0: never). Thread-safe ``submit``; ``close`` once. Raises :class:`ConfigError` if
    the executable cannot be launched."""

    def __init__(self, executable: str, pages: int = 2,
                 recycle: int = RECYCLE_DOCUMENTS) -> None:
        if pages < 1:
            raise ConfigError("render pages must be >= 1", "set DOCFLEET_RENDER_PAGES")
        if recycle < 0:
            raise ValueError("recycle must be >= 0")
        self.executable = executable
        self.pages = pages
        self.recycle = recycle
        #: pages replaced because they had printed ``recycle`` documents
        self.recycled = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="chromium",
                                        daemon=True)
        self._thread.start()
        self._closed = False
        try:
            asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=60)
        except Exception as exc:
            self._stop_loop()
            raise ConfigError(
                f"cannot start Chromium at {executable}: {type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}",
                "install Debian's chromium package or set DOCFLEET_CHROMIUM_PATH",
            ) from exc

    async def _start(self) -> None:
        from playwright.async_api import async_playwright

        self._pw = await async_playwright().start()
        self._browser = await self._pw.chromium.launch(
            executable_path=self.executable, headless=True, args=list(CHROMIUM_FLAGS),
        )
        self._free: asyncio.Queue[Any] = asyncio.Queue()
        self._loaded: set[Any] = set()
        self._printed: dict[Any, int] = {}  # page → documents it has laid out
        # one page now, the others when a batch finds every open page busy: a short run
        # never starts renderers it does not use (~0.075 s of CPU a page in a bare start)
        self._free.put_nowait(await self._browser.new_page())
        self._opened = 1

    async def _page(self, width: int, height: int) -> Any:
        if self._free.empty() and self._opened < self.pages:
            self._opened += 1  # counted before the await: a concurrent batch sees it
            try:
                page = await self._browser.new_page()
            except BaseException:
                self._opened -= 1
                raise
        else:
            page = await self._free.get()
        try:
            if page not in self._loaded:
                await page.set_content(SKELETON)
                self._loaded.add(page)
            if page.viewport_size != {"width": width, "height": height}:
                await page.set_viewport_size({"width": width, "height": height})
        except BaseException:
            self._free.put_nowait(page)
            raise
        return page

    async def _replace(self, page: Any) -> Any:
        """A fresh page instead of ``page`` (kept if the browser cannot open one)."""
        try:
            fresh = await self._browser.new_page()
        except Exception:
            return page
        self._loaded.discard(page)
        self._printed.pop(page, None)
        with contextlib.suppress(Exception):  # a crashed page: nothing left to close
            await page.close()
        return fresh

    async def _worn(self, page: Any, documents: int) -> Any:
        """``page`` after it laid out ``documents`` more; a fresh page once it has done
        ``recycle`` in all."""
        done = self._printed.get(page, 0) + documents
        if not self.recycle or done < self.recycle:
            self._printed[page] = done
            return page
        fresh = await self._replace(page)
        self.recycled += fresh is not page
        return fresh

    async def _print_once(self, jobs: Sequence[Job], pdf: bool) -> list[Printed | None]:
        width, height = jobs[0].width, jobs[0].height
        page = await self._page(width, height)
        printed = False
        try:
            raw = await page.evaluate(BATCH_JS, {
                "docs": [j.html for j in jobs], "extract": [j.wanted for j in jobs],
                "width": width, "height": height})
            data = await page.pdf(prefer_css_page_size=True, print_background=True) \
                if pdf else None
            printed = True
        except Exception:
            page = await self._replace(page)  # a page that failed may be broken
            raise
        finally:
            if printed:
                page = await self._worn(page, len(jobs))
            self._free.put_nowait(page)
        docs = json.loads(raw)
        if len(docs) != len(jobs):
            raise RuntimeError(f"the page laid out {len(docs)} of {len(jobs)} documents")
        files = split_pdf(data, [d["pages"] for d in docs], [d["title"] for d in docs],
                          [j.wanted for j in jobs]) if data is not None else [None] * len(jobs)
        return [Printed(files[i], parse_layout(d["layout"])) if j.wanted else None
                for i, (j, d) in enumerate(zip(jobs, docs, strict=True))]

    async def _print_batch(self, jobs: Sequence[Job], pdf: bool
                           ) -> list[Printed | RenderError | None]:
        error: BaseException | None = None
        for _ in range(2 if len(jobs) > 1 else 1):  # a batch gets a second try
            try:
                return list(await self._print_once(jobs, pdf))
            except Exception as exc:
                if not self._browser.is_connected():
                    raise
                error = exc
        if len(jobs) == 1:
            return [RenderError(f"{type(error).__name__}: {error}")]
        out: list[Printed | RenderError | None] = []
        for job in jobs:  # one by one: a broken document fails alone
            if not job.wanted:
                out.append(None)
                continue
            out.extend(await self._print_batch([job], pdf))
        return out

    def submit_batch(self, jobs: Sequence[Job], pdf: bool = True
                     ) -> Future[list[Printed | RenderError | None]]:
        """Lay out ``jobs`` (all of one page size) in one page, extract the boxes of the
        wanted ones and (if ``pdf``) print them all with one ``page.pdf`` call, split into
        one PDF per wanted document. The future's list has one entry per job: a
        :class:`Printed`, ``None`` for a job not wanted, or the :class:`RenderError` of a
        document that failed on its own (after the batch failed twice). Raises if the
        browser is gone. A document's bytes depend on its batch: callers that need
        determinism must form batches from the document alone (see the invoice pack)."""
        if self._closed:
            raise RuntimeError("Chromium is closed")
        if not jobs:
            raise ValueError("an empty batch")
        if len({(j.width, j.height) for j in jobs}) != 1:
            raise ValueError("a batch must share one page size")
        return asyncio.run_coroutine_threadsafe(self._print_batch(list(jobs), pdf),
                                                self._loop)

    def submit(self, html: str, width: int, height: int, pdf: bool = True
               ) -> Future[Printed]:
        """One document alone (a batch of one); raises its :class:`RenderError`."""
        batch = self.submit_batch([Job(html, width, height)], pdf)
        out: Future[Printed] = Future()

        def done(f: Future[list[Printed | RenderError | None]]) -> None:
            try:
                (result,) = f.result()
            except BaseException as exc:
                out.set_exception(exc)
                return
            if isinstance(result, Printed):
                out.set_result(result)
            else:
                out.set_exception(result or RenderError("nothing printed"))

        batch.add_done_callback(done)
        return out

    @property
    def alive(self) -> bool:
        """False once closed or once the browser process is gone (crashed, killed)."""
        return not self._closed and bool(self._browser.is_connected())

    @property
    def pages_open(self) -> int:
        """Pages opened so far (at most ``pages``; a replaced page counts once)."""
        return self._opened

    @property
    def version(self) -> str:
        return str(self._browser.version)

    async def _shutdown(self) -> None:
        try:
            await self._browser.close()
        finally:
            await self._pw.stop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self._loop.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=30)
        except Exception:  # a dead browser: nothing left to close
            pass
        finally:
            self._stop_loop()
