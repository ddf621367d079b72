"""What printing Japanese in fonts the PDF embeds changes: whole-tree CPU (cgroup) and bytes
per clean ja-JP document of each pack, the content version before ``font_content`` (its
Japanese in Noto Sans CJK, which Chromium draws as Type 3 procedures) against the one
with it (BIZ UD, embedded TrueType), interleaved round by round in one sitting.

CPU per document is the marginal between a SMALL- and a LARGE-document one-task
``docfleet run`` of the same pack and version (start-up cancels out); bytes per document
are the LARGE run's mean PDF size.

    python bench/embedded_fonts.py                      # every pack, 2 rounds
    python bench/embedded_fonts.py --packs invoice --rounds 3

Writes bench/results/embedded_fonts.json (``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from documents import CgroupMeter, Meter, ProcMeter, fleet

RESULTS = Path(__file__).parent / "results" / "embedded_fonts.json"
PACKS = ("invoice", "receipt", "purchase_order", "bank_statement", "form")


def _versions(pack: str) -> tuple[int, int]:
    """(the version before the pack's ``font_content``, ``font_content``), read in a child
    (the bench imports nothing from docfleet: ``PYTHONPATH`` picks the code)."""
    code = (f"from docfleet.packs import load_pack; s = load_pack({pack!r}).steps; "
            "print(s.font_content)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    new = int(done.stdout.strip())
    return new - 1, new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packs", default=",".join(PACKS))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--small", type=int, default=8)
    parser.add_argument("--large", type=int, default=40)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    meter: Meter = CgroupMeter.find() or ProcMeter()
    load_before = os.getloadavg()
    out: dict[str, Any] = {}
    table = Table(title="clean ja-JP documents: Noto CJK (Type 3) → BIZ UD (embedded)")
    for col in ("pack", "versions", "CPU ms/doc", "ratio", "KB/doc", "ratio"):
        table.add_column(col, justify="left" if col in ("pack", "versions") else "right")
    for pack in args.packs.split(","):
        versions = _versions(pack)
        cpu: dict[int, list[float]] = {v: [] for v in versions}
        size: dict[int, list[float]] = {v: [] for v in versions}
        for _ in range(args.rounds):
            for v in versions:  # interleaved: load drifts hit both alike
                spec = f"{pack}:locales=ja-JP;content={v}"  # clean: fleet's pdf-clean
                small = fleet(meter, "pdf-clean", 1, args.small, None, spec)
                large = fleet(meter, "pdf-clean", 1, args.large, None, spec)
                cpu[v].append((large["cpu_s"] - small["cpu_s"]) * 1000
                              / (args.large - args.small))
                size[v].append(large["bytes_per_document"] / 1000)
        old, new = versions
        rows = {str(v): {"cpu_ms_per_document": round(statistics.median(cpu[v]), 1),
                         "rounds": [round(x, 1) for x in cpu[v]],
                         "kb_per_document": round(statistics.median(size[v]), 1)}
                for v in versions}
        cpu_ratio = rows[str(new)]["cpu_ms_per_document"] / rows[str(old)]["cpu_ms_per_document"]
        kb_ratio = rows[str(new)]["kb_per_document"] / rows[str(old)]["kb_per_document"]
        out[pack] = {"content": rows, "cpu_ratio": round(cpu_ratio, 2),
                     "bytes_ratio": round(kb_ratio, 2)}
        table.add_row(pack, f"{old} → {new}",
                      f"{rows[str(old)]['cpu_ms_per_document']} → "
                      f"{rows[str(new)]['cpu_ms_per_document']}", f"{cpu_ratio:.2f}x",
                      f"{rows[str(old)]['kb_per_document']} → "
                      f"{rows[str(new)]['kb_per_document']}", f"{kb_ratio:.2f}x")
    Console().print(table)
    result = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "cpu_method": meter.method, "cpus": os.cpu_count(),
              "load_before": load_before, "load_after": os.getloadavg(),
              "documents": [args.small, args.large], "rounds": args.rounds, "packs": out}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
