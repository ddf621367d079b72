"""Content version 2 of the document packs (issue 25): documents vary the way real
ones do, the truth stays exact, and a run planned before the change stays byte-identical.

- Version 1 is pinned: an html run through the real CLI with ``content=1`` (the form of a
  stored run from before the option) prints the very bytes and golden rows the code
  printed before version 2 existed (digests taken from that code, commit 6b8f68f), for
  every document pack; version 2 likewise (``content=2``, digests from commit 30ffdf9).
- The option's normal form: a new run records the newest version, a stored form without
  it parses as version 1, normalising twice changes nothing, a bad value is one line.
- Version 2 records reconcile (cash rounding, loyalty) and their styles vary per language.
- A real 500-document PDF run meets the diversity targets the issue sets, measured by
  :mod:`docfleet.export.diversity` from its golden tables.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from docfleet.core.errors import ConfigError
from docfleet.core.settings import load_settings
from docfleet.export import diversity
from docfleet.export.reader import RunReader
from docfleet.packs import load_pack
from docfleet.packs.receipt.context import blocks
from docfleet.packs.sdk.locales import JURISDICTIONS
from support.needs import require

#: digests of the version-1 html runs below, printed by the code before version 2
V1_DIGESTS = {
    "receipt": {
        "documents": "466fe2f0d216331362312ffbb15b430fe96018252795978bc69c0b4b1663de98",
        "receipts": "a45ad8aae025c1f5b419b5c08d50b7e61a0eedfd56aee25d1886f3cae563493e",
        "receipt_items": "e0adf69f08e488cd7384e1c60b47d958809f14bedfd70a981e14e4a776cfd4fd",
        "fields": "c5ce9cd25bc6dfc1829b6246189fce50ccd8ae763aafc6041efb99d2d0601f04",
    },
    "invoice": {
        "documents": "23c6897a29cd1a69abb54464fdd7a30392196e8fe127823fde749d904a5572bf",
        "invoices": "3b6d7ca6e8b8d9ec7b29ec617f56d419955f733a3dad6b00b6e36d9b274d5a3a",
        "line_items": "9f47747bad85460974969a1e8e1d032be3e52cecf5775f2a2ec9d99b6f071c52",
        "fields": "49ce5fd0117edecfeb6590bed59a837cf9ee48880bae6aee2d2fb81fbac04300",
    },
    "purchase_order": {
        "documents": "123df35ae4860b8aa6c6ed02da194a4427c957c977336c4908951d3d34c0c027",
        "purchase_orders": "68d0027f318db2242b4410e399be085d37583a8d8041ea96d2d66db87a3b6fa8",
        "order_lines": "7fce335420d1a05340b22065b4eef5ac8878498cd364da6bfa8294b4b5123dc9",
        "fields": "71e5377e820adb9b7b5c981c9c30b613c6f18583a4bdf90e07c3a154552519df",
    },
    "bank_statement": {
        "documents": "8cd32f50e8f2b2a44b3f3cf703738b02a5e0716d4bbcab0ca4b12f72520a80f4",
        "statements": "e98f1a7c97dde19685504cfb27ef264640a7f67132a7dff38fd486de0dd0bfb4",
        "transactions": "14ff4c69a5efe66735dcc615b660b482c2bbc7019657e65fa583ec148bcfe84b",
        "fields": "bafbf5d97138614c97ca20b49c0ac2fde6a27903a57fadb0879fd312aef34e89",
    },
}
#: digests of the version-2 html runs below, printed by main's code before version 3
#: (commit 30ffdf9): a run stored with ``content=2`` keeps printing these bytes
V2_DIGESTS = {
    "receipt": {
        "documents": "4174ad3e1895997a603125990ca5d35aad930865a0f162deaa6deeccd6782e3f",
        "receipts": "fb97314e021974bf4688b3a7ec5ea98e249dca4d7d6603c10d9b855a84bce65d",
        "receipt_items": "2de469e82644d406c76c96c2dab71c4e8a65c2c1a9a356f1f8dd52e0b7bc5191",
        "fields": "d3006c6b0652ac45a2114026bb751b7fcaf87ccda3299b68c4771cb719ff8ee2",
    },
    "invoice": {
        "documents": "a39b8e23e484715bc14a16b4baa475765b8d3239189c682d7f22a3888965e1c3",
        "invoices": "653c2250251735b3f72338d8c06b5a58637fb07e3d229c551f047adc538691e6",
        "line_items": "8bd486d7e10910eeded7ed83edfdc5d81a6604a1b0315a53a09ddaff123a8c66",
        "fields": "503cd0b05a7670336ae443bc33322ba1624def2db0a2ecb9ae35fd9def28cf9b",
    },
    "purchase_order": {
        "documents": "79251c021693028196b6c0673a7c004b7520513204f782564c6a0c17dc593a7e",
        "purchase_orders": "87577f149c11d3de5d742c5cf441cd7ed37f567835d701bb5920fc2fa38fb11d",
        "order_lines": "e4c5041deb306a2025950c2489aa4018990c10627a4b8fb4d8854147dc7f5a5e",
        "fields": "4a59bbdd4600883099d7c032934bc766e1ea0daf14748f5722c2fc466ee86886",
    },
    "bank_statement": {
        "documents": "5064f7a8c5c897d8ac7920004e39bf86b7210bef8dc89654886b662927d1052c",
        "statements": "15431ff12cf4330d6ab034b6b2ae2b713c4d8e4932eac549b5229879d00baa28",
        "transactions": "9722fcf21aa4398e8f577862d1e98ddd71aaffdd5c78f8f7919710180f9f6cf7",
        "fields": "a26d467d553007ec7f1942c11a9db12f63c853199f1ff2b112438cfedee9ba3d",
    },
}
#: the options of those runs (the receipt's layouts of the time)
V1_OPTIONS = {"receipt": ("format=html", "archetypes=thermal,compact,bistro", "content=1"),
              "invoice": ("format=html", "content=1"),
              "purchase_order": ("format=html", "content=1"),
              "bank_statement": ("format=html", "content=1")}


def docfleet(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "docfleet", *args], capture_output=True,
                          text=True, timeout=timeout)


def run(tmp: Path, run_id: str, total: int, *options: str, pack: str = "receipt") -> Path:
    opts = [x for o in options for x in ("--option", o)]
    done = docfleet("run", "--run-id", run_id, "--pack", pack, "--total", str(total),
                    "--tasks", "2", "--state", f"sqlite:///{tmp}/state.db",
                    "--out", f"file://{tmp}/out", "--log-dir", str(tmp / "logs"), *opts)
    assert done.returncode == 0, done.stderr[-3000:]
    return tmp / "out" / run_id


def digests(root: Path, tables: list[str]) -> dict[str, str]:
    h = hashlib.sha256()
    for p in sorted((root / "documents").iterdir()):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    out = {"documents": h.hexdigest()}
    for table in tables:
        rows = pq.read_table(root / "golden" / table).to_pylist()
        out[table] = hashlib.sha256(json.dumps(rows, sort_keys=True, default=str)
                                    .encode()).hexdigest()
    return out


@pytest.mark.fleet
@pytest.mark.parametrize("pack", sorted(V1_DIGESTS))
def test_version_1_prints_the_bytes_it_printed_before_version_2(tmp_path: Path,
                                                                 pack: str) -> None:
    root = run(tmp_path, "v1", 40, *V1_OPTIONS[pack], pack=pack)
    expected = V1_DIGESTS[pack]
    assert digests(root, [t for t in expected if t != "documents"]) == expected


@pytest.mark.fleet
@pytest.mark.parametrize("pack", sorted(V2_DIGESTS))
def test_version_2_prints_the_bytes_it_printed_before_version_3(tmp_path: Path,
                                                                 pack: str) -> None:
    root = run(tmp_path, "v2", 40, "format=html", "content=2", pack=pack)
    expected = V2_DIGESTS[pack]
    assert digests(root, [t for t in expected if t != "documents"]) == expected


#: a ja-JP purchase-order html run at content 4, printed before content 5 priced those
#: orders in yen once (main at a2dcb5b): content 4 keeps its (too large) yen prices
YEN_4_DIGESTS = {
    "documents": "ed822dd147de3f86410e1c33000af0604ff0bfa26bbe0dea5977c65012cc3e18",
    "purchase_orders": "f2679fa202e54d866e37905dc7dc5b8685c0c55d3dd2b0c7d6f15935e4cc9939",
    "order_lines": "404de17dce372dcfc875875d19c5e384d37b056613d9b40de47aa501d66e5c6b",
    "fields": "0ac77505a548b2c63c3a53d1d010b63cd1d8811a6a4c0bf1940499e0da45d768",
}


@pytest.mark.fleet
def test_purchase_order_version_4_prints_the_yen_it_printed_before_version_5(
        tmp_path: Path) -> None:
    root = run(tmp_path, "yen4", 24, "format=html", "content=4", "locales=ja-JP",
               pack="purchase_order")
    assert digests(root, [t for t in YEN_4_DIGESTS if t != "documents"]) == YEN_4_DIGESTS


def test_the_content_option_pins_the_version_and_normalises_once() -> None:
    pack = load_pack("receipt")
    new = pack.validate_options({"format": "html"})
    assert new["content"] == pack.content_versions[-1] >= 2  # a new run records the newest version
    assert pack.validate_options(new) == new
    old = {k: v for k, v in new.items() if k != "content"}  # a stored run's old form
    assert pack.parse(old).content == 1
    pinned = pack.validate_options({"format": "html", "content": "1"})
    assert pinned["content"] == 1 and pack.validate_options(pinned) == pinned
    with pytest.raises(ConfigError, match="content='99' is not a content version"):
        pack.validate_options({"content": "99"})
    invoice = load_pack("invoice")
    assert invoice.validate_options({})["content"] == invoice.content_versions[-1] >= 2
    assert invoice.parse({k: v for k, v in invoice.validate_options({}).items()
                          if k != "content"}).content == 1
    bench = load_pack("bench")  # a pack with one version keeps its old normal form
    assert "content" not in bench.validate_options({})


def records(n: int) -> list:
    pack = load_pack("receipt")
    source = pack.source(pack.validate_options({"format": "html"}))
    return [source.generate("v2-records", i) for i in range(n)]


def test_version_2_records_reconcile_and_vary_per_language() -> None:
    rs = records(400)
    assert all(r.content >= 2 and r.style is not None for r in rs)
    rounded = [r for r in rs if r.rounding]
    assert rounded and all(r.payment_method == "cash" and r.locale in
                           ("en-CA", "en-AU", "fr-CH") for r in rounded)
    for r in rounded:
        assert r.amount_due % Decimal("0.05") == 0
        assert r.change == r.tendered - r.amount_due
    assert any(r.loyalty for r in rs) and any(r.printed_at for r in rs)
    assert {r.tax_inclusive for r in rs if r.locale == "en-CA"} == {False}  # GST/HST on top
    assert {r.archetype for r in rs} == set(load_pack("receipt").archetypes)
    assert len(load_pack("receipt").archetypes) >= 8
    words: dict[str, set[str]] = defaultdict(set)
    styles = Counter()
    for r in rs:
        lang = JURISDICTIONS[r.locale].language
        words[lang].add(r.style.label("total", ""))
        styles[(r.style.currency, r.style.upper, r.style.tail)] += 1
        assert blocks(r)  # every record lays out into rows
    assert all(len(w) >= 6 for w in words.values()), {k: len(v) for k, v in words.items()}
    assert len(styles) >= 20 and max(styles.values()) < 0.1 * len(rs)


@pytest.mark.fleet
def test_a_run_meets_the_diversity_targets(tmp_path: Path) -> None:
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    root = run(tmp_path, "div", 500, "format=pdf", "conditions=clean")
    assert docfleet("verify", "div", "--state", f"sqlite:///{tmp_path}/state.db",
                    "--out", f"file://{tmp_path}/out").returncode == 0
    report = diversity.measure_run(RunReader(f"file://{tmp_path}/out", "div"))
    figures = {f.name: f for f in diversity.figures(report)}
    missed = [f"{f.name}: {f.shown}" for f in figures.values() if f.passed is False]
    assert not missed, missed
    assert report["documents"] == 500
    assert root.exists()


def test_version_3_statement_bics_are_ascii_and_well_formed() -> None:
    """Content 3 of the statement pack (issue 29 item 5): a BIC built from a bank's
    printed name is ISO 9362 (4 letters A-Z bank code, country, location, branch), never
    ``CRÉDFRBGXXX`` or Arabic letters; the newest statement content is 3."""
    import re

    from stdnum import bic as stdnum_bic

    pack = load_pack("bank_statement")
    options = pack.validate_options({"format": "html"})
    assert options["content"] >= 3
    source = pack.source(options)
    statements = [source.generate("v3-bic", i) for i in range(200)]
    bics = {s.bic for s in statements}
    assert len(bics) > 20
    for b in bics:
        assert re.fullmatch(r"[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?", b), b
        assert stdnum_bic.is_valid(b), b


@pytest.mark.fleet
def test_version_3_statements_print_value_dates_and_references_some_of_the_time(
        tmp_path: Path) -> None:
    """Statement content 3 (issue 25): value dates are printed by some banks only and
    references are missing on many card / cash / fee lines; the golden row is null
    exactly where nothing is printed (its field rows agree)."""
    root = run(tmp_path, "v3", 200, "format=html", "content=3", pack="bank_statement")
    txs = pq.read_table(root / "golden" / "transactions").to_pylist()
    fields = pq.read_table(root / "golden" / "fields").to_pylist()
    assert len(txs) > 1000
    refs = sum(t["reference"] is not None for t in txs) / len(txs)
    values = sum(t["value_date"] is not None for t in txs) / len(txs)
    assert 0.35 < refs < 0.85, refs
    assert 0.1 < values < 0.5, values
    names = Counter(f["field"] for f in fields)
    assert names["reference"] == sum(t["reference"] is not None for t in txs), names
    assert names["value_date"] == sum(t["value_date"] is not None for t in txs), names
