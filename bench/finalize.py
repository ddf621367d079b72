"""The cost of finalize's proof (issue 12): before the root manifest is written, every
part, document and shard is re-hashed against the sha256 recorded for it (the checks
``docfleet verify`` makes). This measures that proof on a synthetic run of N documents
(real files on ``file://``, a real SQLite state store with every unit DONE) against the
old existence-only check, and ``verify``. Prints a table and writes
``bench/results/finalize.json``.

    python bench/finalize.py --documents 100000 [--unit-size 100] [--doc-bytes 2000]

Peak memory is the traced Python heap during each check (``tracemalloc``): it stays flat
in N because files are hashed one at a time in 1 MiB pieces.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from docfleet.blob.file import FileBlobStore
from docfleet.core.models import RunSpec
from docfleet.dataset.manifest import (
    Part,
    RunFiles,
    build_root,
    document_key,
    part_key,
    sha256,
    shard_key,
    verify_run,
)
from docfleet.kernel.finalize import find_gaps
from docfleet.state.sqlite.store import SQLiteStateStore

ROOT = Path(__file__).resolve().parent.parent


def build(scratch: Path, documents: int, unit_size: int, doc_bytes: int) -> tuple:
    """A complete run: documents, one shard per unit, parts, every unit DONE."""
    rng = random.Random(7)
    blob = FileBlobStore(scratch / "out")
    store = SQLiteStateStore(scratch / "state.db")
    spec = RunSpec("bench-finalize", documents, unit_size, "bench")
    store.create_run(spec, "bench", time.time())
    from docfleet.kernel.planner import plan_units

    units = list(plan_units(spec))
    store.put_units(spec.run_id, units)
    store.mark_planned(spec.run_id, "bench", time.time())
    files = RunFiles(blob, spec.run_id)
    base = scratch / "out" / spec.run_id

    def put(key: str, data: bytes) -> None:  # setup only: no fsync per file
        path = base / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    parts = []
    for unit in units:
        claim = store.claim_next_unit(spec.run_id, "bench", unit.index, 600, time.time())
        assert claim is not None and claim.unit_index == unit.index
        part = Part(spec.run_id, unit.index, unit.start, unit.count)
        for i in range(unit.start, unit.stop):
            data = rng.randbytes(doc_bytes)
            key = document_key(f"{i:06d}.pdf")
            put(key, data)
            part.add_document(key, data)
        shard = rng.randbytes(doc_bytes * unit.count // 4)
        put(shard_key("items", unit.index), shard)
        part.add_shard("items", shard_key("items", unit.index), shard, unit.count)
        data = part.to_bytes()
        put(part_key(unit.index), data)
        store.complete_unit(claim, sha256(data), time.time())
        parts.append((unit.index, data))
    root = build_root(spec.run_id, spec.parameters(), spec.fingerprint(), parts)
    return store, files, root


def existence_only(store: SQLiteStateStore, files: RunFiles) -> int:
    """The check finalize made before issue 12: parts hashed, files only listed."""
    from docfleet.dataset.manifest import parse_json

    listed = set(files.blob.list(files.key("")))
    missing = 0
    for unit in store.units(files.run_id):
        data = files.get(part_key(unit.index))
        assert sha256(data) == unit.part_sha256
        part = parse_json(data, "part")
        missing += sum(files.key(e["key"]) not in listed
                       for e in [*part["documents"], *part["shards"]])
    return missing


def measure(name: str, fn) -> dict:  # type: ignore[no-untyped-def]
    os.sync()
    tracemalloc.start()
    cpu0, t0 = time.process_time(), time.perf_counter()
    result = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"check": name, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "peak_heap_mib": round(peak / 2**20, 1), "result": result}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--unit-size", type=int, default=100)
    parser.add_argument("--doc-bytes", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" /
                        "finalize.json")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-finalize-"))
    try:
        t0 = time.perf_counter()
        store, files, _ = build(scratch, args.documents, args.unit_size, args.doc_bytes)
        built = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in (scratch / "out").rglob("*") if p.is_file())
        rows = [
            measure("existence only (before)", lambda: existence_only(store, files)),
            measure("finalize proof (find_gaps)",
                    lambda: len(find_gaps(store, files)[0])),
        ]
        _, parts = find_gaps(store, files)
        from docfleet.dataset.manifest import ROOT_KEY

        run = store.get_run(files.run_id)
        assert run is not None
        files.put_if_absent(ROOT_KEY, build_root(run.run_id, run.spec.parameters(),
                                                 run.fingerprint, parts))
        rows.append(measure("verify", lambda: len(verify_run(files))))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    base = rows[0]["wall_s"] or 0.01
    print(f"{args.documents} documents in {args.documents // args.unit_size} units, "
          f"{size / 2**20:.0f} MiB on file:// (built in {built:.0f}s)")
    print("check | wall s | cpu s | peak heap MiB | x existence-only")
    print("--- | --- | --- | --- | ---")
    for r in rows:
        print(f"{r['check']} | {r['wall_s']} | {r['cpu_s']} | {r['peak_heap_mib']} | "
              f"{r['wall_s'] / base:.1f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "documents": args.documents, "unit_size": args.unit_size, "doc_bytes": args.doc_bytes,
        "bytes": size, "machine": f"{platform.machine()} {platform.python_version()}",
        "rows": rows,
    }, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0 if all(r["result"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
