"""Byte identity across a code change: the same runs give the same bytes.

Runs a fixed set of small real ``docfleet run``s (every document pack x its capture
conditions x every locale, plus drawn mixes, HTML and multi-page documents) and records the
sha256 of every document and golden shard they write. ``record`` writes them to a JSON file;
``check`` runs the same runs again (on the code under test) and compares, file by file.

    python bench/byte_identity.py record /tmp/base.json          # on the code before
    python bench/byte_identity.py check /tmp/base.json           # on the code after
    PYTHONPATH=/path/to/base/worker python bench/byte_identity.py record /tmp/base.json
    python bench/byte_identity.py check /tmp/base.json --cases invoice-grid,receipt-html
    python bench/byte_identity.py check /tmp/base.json --content invoice=4,receipt=4

``--content PACK=N,…`` plans those packs' runs at content version N (default: each
pack's newest): after a change that adds a version, the versions before it are checked
against a record made before it (where they were the newest).

A document's bytes depend on the machine's Chromium, fonts and libraries, so both sides run
on one machine in one sitting; the JSON is not a figure to carry elsewhere. The bench
imports nothing from docfleet itself (``PYTHONPATH`` can point it at another checkout).
Exit code: 0 when every file matches, 1 when one differs or is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PACKS = ("invoice", "receipt", "purchase_order", "bank_statement", "form")
#: the packs with a ``lines`` option (the form takes every shared option but that one)
LINES = ("invoice", "receipt", "purchase_order", "bank_statement")
CONDITIONS = "clean,scan,photo,fax,annotated"


def cases() -> dict[str, tuple[str, int, int, list[str]]]:
    """name → (pack, total, unit size, ``--option`` values)."""
    out: dict[str, tuple[str, int, int, list[str]]] = {}
    for pack in PACKS:
        # every locale x every condition, one document a cell (document i is cell i)
        out[f"{pack}-grid"] = (pack, 50, 10, ["cover=locales,conditions",
                                              f"conditions={CONDITIONS}"])
        # the pack's default mixes, drawn; units of 7 straddle the print blocks of 8
        out[f"{pack}-drawn"] = (pack, 24, 7, [])
        out[f"{pack}-html"] = (pack, 12, 6, ["format=html"])
        if pack in LINES:  # long documents: several pages (a receipt: one tall page)
            out[f"{pack}-long"] = (pack, 6, 3, ["lines=25-40", "conditions=clean,scan"])
    out["invoice-splits"] = ("invoice", 12, 6, ["format=html", "split_by=template"])
    return out


def digest(root: Path) -> dict[str, str]:
    """sha256 of every document and golden shard under a run's root."""
    out = {}
    for sub in ("documents", "golden"):
        for path in sorted((root / sub).rglob("*")):
            if path.is_file():
                out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def run_case(name: str, work: Path, content: dict[str, str] | None = None) -> dict[str, str]:
    pack, total, unit, options = cases()[name]
    if content and pack in content:
        options = [*options, f"content={content[pack]}"]
    run_id = f"ident-{name}"
    args = [sys.executable, "-m", "docfleet", "run", "--run-id", run_id, "--pack", pack,
            "--total", str(total), "--tasks", "1", "--unit-size", str(unit),
            "--state", f"sqlite:///{work}/{name}.db", "--out", f"file://{work}/out"]
    for option in options:
        args += ["--option", option]
    done = subprocess.run(args, capture_output=True, text=True, timeout=1800,
                          env={**os.environ, "DOCFLEET_TEMPLATE_CACHE": "off"})
    if done.returncode != 0:
        raise SystemExit(f"{name}: docfleet run failed ({done.returncode}): "
                         f"{done.stderr.strip()[-1500:]}")
    files = digest(work / "out" / run_id)
    if not any(k.startswith("documents/") for k in files):
        raise SystemExit(f"{name}: the run wrote no documents")
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("record", "check"))
    parser.add_argument("path", type=Path, help="the JSON of recorded sha256s")
    parser.add_argument("--cases", help="comma list of case names (default: all)")
    parser.add_argument("--content", default="",
                        help="PACK=N,…: plan those packs' runs at content version N")
    args = parser.parse_args()
    content = dict(pair.split("=", 1) for pair in args.content.split(",") if pair)
    names = args.cases.split(",") if args.cases else list(cases())
    unknown = sorted(set(names) - set(cases()))
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(cases())}")
    recorded: dict[str, dict[str, str]] = {}
    if args.mode == "check":
        recorded = json.loads(args.path.read_text())["cases"]
        missing = [n for n in names if n not in recorded]
        if missing:
            parser.error(f"{args.path} has no case {', '.join(missing)}")
    results: dict[str, dict[str, str]] = {}
    bad = 0
    with tempfile.TemporaryDirectory(prefix="docfleet-ident-") as tmp:
        for name in names:
            began = time.monotonic()
            results[name] = files = run_case(name, Path(tmp), content)
            line = f"{name}: {len(files)} files, {time.monotonic() - began:.0f} s"
            if args.mode == "check":
                want = recorded[name]
                differ = sorted(k for k in set(want) | set(files) if want.get(k) != files.get(k))
                bad += len(differ)
                line += (" identical" if not differ else
                         f" {len(differ)} differ: {', '.join(differ[:5])}")
            print(line, flush=True)
    if args.mode == "record":
        args.path.write_text(json.dumps({"cases": results}, indent=1, sort_keys=True) + "\n")
        print(f"recorded {sum(map(len, results.values()))} files in {args.path}")
        return 0
    total = sum(map(len, results.values()))
    print(f"{total - bad} of {total} files identical" if bad else
          f"all {total} files identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
