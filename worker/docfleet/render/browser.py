"""One Chromium per task, driven by Playwright, with a pool of reused pages.

Playwright's async API runs on a private event loop in a background thread;
:meth:`Chromium.submit` hands it one HTML document and returns a
``concurrent.futures.Future``, so the caller (a pack session) keeps ``pages`` documents
in flight while it builds the next records and HTML on its own thread. Chromium is
Debian's (``executable_path``); ``playwright install`` is never needed.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from docfleet.errors import ConfigError
from docfleet.render.layout import EXTRACT_JS, Layout, parse_layout

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--font-render-hinting=none",
)


class RenderError(RuntimeError):
    """A document that would not print as its golden truth says (layout fault)."""


@dataclass(frozen=True)
class Printed:
    pdf: bytes | None  # None when only the layout was asked for
    layout: Layout


class Chromium:
    """A started browser with ``pages`` reusable pages. Thread-safe ``submit``; ``close``
    once. Raises :class:`ConfigError` if the executable cannot be launched."""

    def __init__(self, executable: str, pages: int = 2) -> None:
        if pages < 1:
            raise ConfigError("render pages must be >= 1", "set DOCFLEET_RENDER_PAGES")
        self.executable = executable
        self.pages = pages
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
        for _ in range(self.pages):
            self._free.put_nowait(await self._browser.new_page())

    async def _print(self, html: str, width: int, height: int, pdf: bool) -> Printed:
        page = await self._free.get()
        try:
            await page.set_viewport_size({"width": width, "height": height})
            await page.set_content(html, wait_until="load")
            layout = parse_layout(await page.evaluate(EXTRACT_JS))
            data = await page.pdf(prefer_css_page_size=True, print_background=True) \
                if pdf else None
        finally:
            self._free.put_nowait(page)
        return Printed(data, layout)

    def submit(self, html: str, width: int, height: int, pdf: bool = True) -> Future[Printed]:
        """Lay out ``html`` in a ``width``x``height`` px viewport, extract its boxes and
        (if ``pdf``) print it with the page's CSS page size."""
        if self._closed:
            raise RuntimeError("Chromium is closed")
        return asyncio.run_coroutine_threadsafe(self._print(html, width, height, pdf),
                                                self._loop)

    @property
    def alive(self) -> bool:
        """False once closed or once the browser process is gone (crashed, killed)."""
        return not self._closed and bool(self._browser.is_connected())

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
