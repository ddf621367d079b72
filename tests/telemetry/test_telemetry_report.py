"""``docfleet report`` over a real 3-task run with a poison unit, opened in a real headless
Chromium: the page renders one Gantt bar per unit, the failure with its error, progress
and spend, and fetches nothing from the network."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from docfleet.state import open_state_store
from support.fleet import cli
from support.needs import require

pytestmark = pytest.mark.fleet

CHROMIUM = os.environ.get("DOCFLEET_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
#: The README's screenshot; refreshed only with UPDATE_SCREENSHOTS=1 so a test
#: run leaves the tree clean.
README_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "report.png"


def test_report_of_a_fleet_run_renders_every_unit_in_chromium(
    tmp_path: Path, run_id: str
) -> None:
    require(Path(CHROMIUM).exists() or shutil.which("chromium") is not None, "Chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "playwright")
    state, out = f"sqlite:///{tmp_path / 'state.db'}", f"file://{tmp_path / 'out'}"
    env = {"DOCFLEET_BENCH_DOC_MS": "15", "DOCFLEET_BENCH_FAIL_INDEXES": "37",
           "DOCFLEET_POLL_SECONDS": "0.2"}
    ran = cli("run", "--run-id", run_id, "--total", "120", "--unit-size", "5", "--tasks", "3",
              "--pack", "bench", "--state", state, "--out", out,
              "--log-dir", str(tmp_path / "logs"), env=env)
    assert ran.returncode == 1, ran.stderr  # unit 7 (document 37) is a hole
    store = open_state_store(state)
    store.add_spend(run_id, "gpt-4o-mini", 1_250_000)  # as a catalogue call would record it
    store.add_spend(run_id, "claude-3-5-haiku", 420_000)
    html_path = tmp_path / "report.html"
    made = cli("report", run_id, "--out", str(html_path), "--state", state, "--out-uri", out)
    assert made.returncode == 0, made.stderr
    assert "23/24 units done" in made.stdout

    page_html = html_path.read_text()
    for external in ("src=", "href=", "url(", "@import", "<script"):
        assert external not in page_html, f"the report must be self-contained ({external})"

    requests: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists()
                                     else shutil.which("chromium"), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1040, "height": 900})
        page.on("request", lambda r: requests.append(r.url))
        page.goto(html_path.as_uri())
        bars = page.locator("svg.gantt rect.unit")
        units = sorted(int(b.get_attribute("data-unit")) for b in bars.all())
        states = {int(b.get_attribute("data-unit")): b.get_attribute("data-state")
                  for b in bars.all()}
        rows = page.locator("svg.gantt text.label").all_text_contents()
        assert page.locator("#run-state").inner_text() == "FAILED"
        assert page.locator("#units-done").inner_text() == "23 / 24"
        assert page.locator("#units-failed").inner_text() == "1"
        failure = page.locator("#failures tr[data-unit='7']").inner_text()
        assert page.locator("#tasks tr").count() == 1 + 3  # header + one row per task
        assert page.locator("#spend-total").inner_text() == "$0.0017"
        assert all(b.bounding_box()["width"] >= 2 for b in bars.all()), "bars are visible"
        shot = (README_SCREENSHOT if os.environ.get("UPDATE_SCREENSHOTS") == "1"
                else tmp_path / "report.png")
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
        browser.close()
    assert units == list(range(24)), "one bar per unit"
    assert states[7] == "FAILED" and {s for u, s in states.items() if u != 7} == {"DONE"}
    assert len(rows) == 3 and all(r.startswith("task ") for r in rows)
    assert "injected failure at document 37" in failure and "FAILED" in failure
    assert requests == [html_path.as_uri()], "nothing but the file itself was fetched"
