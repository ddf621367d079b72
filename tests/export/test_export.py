"""`docfleet export` on real multi-task runs: Parquet and DuckDB sinks equal the union of
the shards, exporting twice equals once, a tampered shard or a missing root is refused,
--partial exports only DONE units, COCO/FUNSD boxes land on their words."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from exportlib import Run, bench_run, fleet_run, invoice_run, invoke
from PIL import Image

from docfleet.blob import open_blob_store
from docfleet.export import RunReader, export_run
from support.fleet import cli

TABLES = ["cells", "chars", "fields", "invoices", "labels", "line_items", "lines", "links",
          "pages", "words"]


@pytest.fixture(scope="module")
def invoices(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return invoice_run(tmp_path_factory)


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return bench_run(tmp_path_factory)


def export(run: Run, to: str, *extra: str, process: bool = False):  # type: ignore[no-untyped-def]
    """``docfleet export`` in a real process (``process``) or in this one."""
    return (cli if process else invoke)("export", run.run_id, "--out", run.out, "--state",
                                        run.state, "--to", to, *extra)


def digest(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.iterdir())}


def test_parquet_and_duckdb_equal_the_union_of_the_shards(invoices: Run, tmp_path: Path
                                                          ) -> None:
    manifest = invoices.manifest
    assert manifest["units"] == 6 and sorted(manifest["rows"]) == TABLES
    done = export(invoices, f"parquet://{tmp_path / 'pq'}", process=True)
    assert done.returncode == 0, done.stderr
    db = tmp_path / "run.duckdb"
    done = export(invoices, f"duckdb:///{db}")  # duckdb:////abs (SQLAlchemy style)
    assert done.returncode == 0, done.stderr
    assert "invoices 24 rows" in done.stdout
    con = duckdb.connect(str(db), read_only=True)
    for table in TABLES:
        shards = invoices.shards(table)
        assert shards.num_rows == manifest["rows"][table] > 0
        exported = pq.read_table(tmp_path / "pq" / f"{table}.parquet")
        assert exported.equals(shards.replace_schema_metadata(None)), table
        in_db = con.sql(f"SELECT * FROM {table}").to_arrow_table()
        assert in_db.num_rows == manifest["rows"][table]
        key = ["document", "line" if table == "line_items" else "page"] \
            if table in ("line_items", "words", "pages") else ["document"]
        assert sorted(in_db.select(key).to_pylist(), key=str) == sorted(
            shards.select(key).to_pylist(), key=str)
    # money stays exact decimal through DuckDB, and the view joins the three tables
    total = con.execute("SELECT sum(total) FROM invoices").fetchone()[0]
    assert str(total) == str(sum(invoices.shards("invoices").column("total").to_pylist()))
    view_rows = con.execute("SELECT count(*) FROM invoice_fields").fetchone()[0]
    assert view_rows == manifest["rows"]["fields"]
    joined = con.execute(
        "SELECT count(*) FROM invoice_fields WHERE field = 'net_amount' "
        "AND CAST(value AS DECIMAL(18,2)) = net_amount").fetchone()[0]
    assert joined == manifest["rows"]["line_items"]
    meta = json.loads((tmp_path / "pq" / "_export.json").read_text())
    assert meta["rows"] == manifest["rows"] and meta["partial"] is False


def test_export_twice_equals_once(invoices: Run, tmp_path: Path) -> None:
    target = tmp_path / "pq"
    db = tmp_path / "twice.duckdb"
    for _ in range(2):
        assert export(invoices, f"parquet://{target}").returncode == 0
        if _ == 0:
            first = digest(target)
        assert export(invoices, f"duckdb:///{db}", "--tables", "invoices,fields"
                      ).returncode == 0
    assert digest(target) == first, "same bytes, no temp files left"
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), count(DISTINCT document) FROM invoices"
                       ).fetchone() == (24, 24)
    assert con.execute("SELECT count(*) FROM fields").fetchone()[0] == \
        invoices.manifest["rows"]["fields"]
    tables = {r[0] for r in con.execute("SHOW TABLES").fetchall()}
    assert "line_items" not in tables and "words" not in tables, "--tables picks tables"


def test_a_tampered_shard_is_refused_naming_unit_and_key(bench: Run, tmp_path: Path) -> None:
    run = bench.copy(tmp_path / "copy")
    db = tmp_path / "t.duckdb"
    assert export(run, f"duckdb:///{db}").returncode == 0
    shard = run.root / "golden" / "items" / "unit-000003.parquet"
    table = pq.read_table(shard)
    pq.write_table(table.slice(1), shard)  # a row removed, a valid Parquet file
    for target in (f"parquet://{tmp_path / 'pq'}", f"duckdb:///{db}"):
        done = export(run, target, process=True)
        assert done.returncode == 1
        assert "unit 3" in done.stderr and "golden/items/unit-000003.parquet" in done.stderr
        assert "sha256" in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "pq").exists() or not any((tmp_path / "pq").iterdir())
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM items").fetchone()[0] == 60, "old table kept"


def test_no_root_is_refused_and_partial_exports_done_units(tmp_path_factory: pytest.
                                                           TempPathFactory, tmp_path: Path
                                                           ) -> None:
    # document 7 always fails: unit 1 (documents 5-9) is FAILED, the run never completes
    run = fleet_run(tmp_path_factory.mktemp("partial"), "part-x", 30, 5, "bench",
                    {"DOCFLEET_BENCH_FAIL_INDEXES": "7"}, 1, "--max-attempts", "1")
    assert not (run.root / "manifest.json").exists()
    done = export(run, f"parquet://{tmp_path / 'pq'}", process=True)
    assert done.returncode != 0
    assert "no root manifest" in done.stderr and "--partial" in done.stderr
    assert not (tmp_path / "pq").exists()
    done = export(run, f"parquet://{tmp_path / 'pq'}", "--partial")
    assert done.returncode == 0, done.stderr
    assert "exporting only its 5 DONE unit(s) of 6 (--partial)" in done.stderr
    assert "partial" in done.stdout
    docs = pq.read_table(tmp_path / "pq" / "items.parquet").column("document").to_pylist()
    assert sorted(docs) == [d for d in range(30) if not 5 <= d < 10]
    assert json.loads((tmp_path / "pq" / "_export.json").read_text())["partial"] is True


def test_bad_targets_and_tables_are_one_line_errors(bench: Run, tmp_path: Path) -> None:
    for args, words in [
        (("--to", "csv://x"), "unknown export target URI scheme"),
        (("--to", f"parquet://{tmp_path}", "--tables", "nope"), "has no table nope"),
        (("--to", f"coco://{tmp_path}"), "(pack bench) has no page layout (no boxed fields "
                                          "and words): coco:// needs"),
        (("--to", f"hf://{tmp_path}"), "(pack bench) has no page layout (no boxed fields "
                                        "and words): hf:// needs"),
        (("--to", f"docile://{tmp_path}"), "docile:// needs PDF pages with boxes"),
    ]:
        done = invoke("export", bench.run_id, "--out", bench.out, *args)
        assert done.returncode == 2 and words in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_export_reads_every_blob_store(bench: Run, blob_uri: str, tmp_path: Path) -> None:
    """The same run copied into file://, gs:// and s3:// (emulators) exports the same."""
    store = open_blob_store(blob_uri)
    for path in sorted(bench.root.rglob("*")):
        if path.is_file():
            store.put(f"{bench.run_id}/{path.relative_to(bench.root).as_posix()}",
                      path.read_bytes())
    result = export_run(RunReader(blob_uri, bench.run_id), f"parquet://{tmp_path}")
    assert result.rows == {"items": 60}
    assert pq.read_table(tmp_path / "items.parquet").equals(
        bench.shards("items").replace_schema_metadata(None))


def _contrast(image: Image.Image, box: tuple[float, float, float, float]) -> int:
    """Brightest minus darkest grey level inside ``box`` (pixels): text has strokes."""
    crop = image.crop((int(box[0]), int(box[1]), int(box[2]) + 1, int(box[3]) + 1))
    low, high = crop.convert("L").getextrema()
    return high - low


def test_coco_boxes_land_on_their_words(invoices: Run, tmp_path: Path) -> None:
    dpi = 100
    done = export(invoices, f"coco://{tmp_path}", "--dpi", str(dpi))
    assert done.returncode == 0, done.stderr
    coco = json.loads((tmp_path / "annotations.json").read_text())
    assert set(coco) >= {"info", "images", "annotations", "categories"}
    cats = {c["id"]: c["name"] for c in coco["categories"]}
    assert cats[1] == "word" and len(cats) == len(set(cats.values()))
    inv = {r["document"]: r for r in invoices.shards("invoices").to_pylist()}
    assert len(coco["images"]) == sum(r["page_count"] for r in inv.values())
    images = {}
    for img in coco["images"]:
        with Image.open(tmp_path / "images" / img["file_name"]) as im:
            assert im.size == (img["width"], img["height"])
            assert abs(img["width"] - inv[img["document"]]["page_width"] * dpi / 72) <= 2
        images[img["id"]] = img
    ids = [a["id"] for a in coco["annotations"]]
    assert len(ids) == len(set(ids))
    words = {(r["document"], r["page"], r["word"]): r
             for r in invoices.shards("words").to_pylist()}
    word_anns = [a for a in coco["annotations"] if a["category_id"] == 1]
    assert len(word_anns) == len(words)
    field_anns = [a for a in coco["annotations"] if a["category_id"] != 1]
    assert len(field_anns) == invoices.manifest["rows"]["fields"]
    inked = checked = 0
    opened: dict[str, Image.Image] = {}
    for a in word_anns:
        img = images[a["image_id"]]
        w = words[(img["document"], img["page"], a["word"])]
        x, y, bw, bh = a["bbox"]
        scale = dpi / 72
        assert a["text"] == w["text"]
        assert x == pytest.approx(w["x0"] * scale, abs=0.02)
        assert y == pytest.approx(w["y0"] * scale, abs=0.02)
        assert x + bw == pytest.approx(w["x1"] * scale, abs=0.03)
        assert 0 <= x < x + bw <= img["width"] + 1 and 0 <= y < y + bh <= img["height"] + 1
        if inv[img["document"]]["condition"] == "clean" and any(c.isalnum() for c in w["text"]):
            im = opened.setdefault(img["file_name"],
                                   Image.open(tmp_path / "images" / img["file_name"]))
            checked += 1
            inked += _contrast(im, (x, y, x + bw, y + bh)) >= 40  # light-on-dark labels too
    assert checked > 500 and inked == checked, f"{checked - inked} word boxes without text"
    # and a box moved off its word by its own width lands on blank paper more often
    assert sum(_contrast(opened[images[a["image_id"]]["file_name"]], (
        a["bbox"][0], a["bbox"][1] + 3 * a["bbox"][3], a["bbox"][0] + a["bbox"][2],
        a["bbox"][1] + 4 * a["bbox"][3])) < 40 for a in word_anns[:200]
        if images[a["image_id"]]["file_name"] in opened) > 0


def test_funsd_entities_cover_every_word_once(invoices: Run, tmp_path: Path) -> None:
    done = export(invoices, f"funsd://{tmp_path}", "--dpi", "72")
    assert done.returncode == 0, done.stderr
    words = invoices.shards("words").to_pylist()
    files = sorted((tmp_path / "annotations").glob("*.json"))
    assert len(files) == len(list((tmp_path / "images").glob("*.png"))) > 0
    total_words = 0
    for path in files:
        page = json.loads(path.read_text())
        assert (tmp_path / "images" / page["image"]).exists()
        ids = [e["id"] for e in page["form"]]
        assert ids == list(range(len(ids)))
        expected = [w for w in words if (w["document"], w["page"]) == (page["document"],
                                                                      page["page"])]
        got = [w for e in page["form"] for w in e["words"]]
        assert sorted(w["text"] for w in got) == sorted(w["text"] for w in expected)
        total_words += len(got)
        for e in page["form"]:
            assert set(e) >= {"id", "text", "box", "label", "words", "linking"}
            assert e["label"] in {"question", "answer", "header", "other"}
            x0, y0, x1, y1 = e["box"]
            assert 0 <= x0 <= x1 <= page["width"] + 1 and 0 <= y0 <= y1 <= page["height"] + 1
            if e["label"] == "answer":
                assert e["words"], f"field {e['field']} has no words"
                # the words hold the field's text (plus any touching punctuation: "[0%]")
                assert "".join(e["text"].split()) in "".join(w["text"] for w in e["words"])
    assert total_words == len(words)
