"""Transfer to unseen templates (issue 25): a simple field extractor trained on one docfleet
configuration and tested on another, our own proxy for the held-out real test.

Per pack, three real ``docfleet run``s (SQLite, ``--tasks 2``, pdf, clean):

- **train**: some layouts (``--option archetypes=``) and one locale family
  (``en-US, en-GB, fr-FR, de-DE``); 4 in 5 of its documents train the extractor, the
  rest (``document % 5 == 0``) are the **in-distribution** test;
- **unseen**: the other layouts and the sibling locale family (``en-AU, en-CA, fr-CH,
  de-AT``: the same languages, other formats, currencies and tax rules);
- **unseen script**: the other layouts in ``ja-JP, ar-SA`` (words the extractor never
  read: what is left is geometry and the amounts' ranks, and the English beside the
  Arabic headings).

(``split_by=template`` holds out layouts within one invoice run; it cannot also hold out
a locale family, so each unseen side is a run of its own.)

The extractor is generic: it never sees docfleet's field ids, template or locale names.
Per document it ranks candidates read from the printed lines by
``docfleet.export.printed`` (every printed amount for the total, every date-like string
for the date) with a logistic regression (scikit-learn) over what a page shows: the
words of the candidate's line, of its left neighbour on the same row and of the line
above (lower-cased, digits as 0, plus character 3-grams), its position on the page, its
height, its rank and share among the document's amounts, whether a currency mark stands
beside it, how many amounts print the same value. It picks the best-scored candidate.

- **total found**: the picked amount equals the golden total (for a bank statement the
  closing balance), as a field-level evaluation compares values;
- **date found**: the picked string is the golden issue date's printed text;
- **rule**: what no training needs: the largest printed amount as the total, the first
  date-like string as the date (the first falls as look-alikes are added);
- **ceiling**: documents where some candidate is right (the recogniser's recall).

Training labels come from the golden tables (a candidate is positive when its line
prints the target field's words and its value is the target's). Prints a table and
writes ``bench/results/transfer.json``.

    python bench/transfer.py                                  # every pack, 600 + 300 + 300
    python bench/transfer.py --packs receipt,invoice --train-total 300 --test-total 150
    python bench/transfer.py --run-dir /tmp/transfer          # keep the runs, reuse them
    python bench/transfer.py --packs receipt --train-content 1 --test-content 2
                                       # a model taught one convention, tested on variety

Needs the ``bench`` extra (scikit-learn): ``pip install -e '.[bench]'``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from docfleet.export.diversity import SPECS
from docfleet.export.printed import normalise, scan, shape
from docfleet.export.reader import RunReader
from docfleet.packs.sdk.money import MINOR_UNITS

RESULTS = Path(__file__).parent / "results"
#: side → the locales of its run: train; unseen with the sibling locales (the same
#: languages, other formats, currencies and tax rules); unseen with other scripts
LOCALES = {"train": "en-US,en-GB,fr-FR,de-DE", "test": "en-AU,en-CA,fr-CH,de-AT",
           "script": "ja-JP,ar-SA"}
#: pack → (training layouts, unseen layouts)
LAYOUTS = {
    "receipt": ("thermal,compact,market,kiosk", "bistro,pharmacy,fuel,boutique"),
    "invoice": ("classic,sidebar,boxed,credit_note", "modern,ledger,receipt,multi_currency"),
    "purchase_order": ("standard,grid", "banner"),
    "bank_statement": ("retail,ledger", "private"),
}
HELD_OUT = 5  # document % HELD_OUT == 0: the in-distribution test
ROLES = ("total", "date")


# --------------------------------------------------------------------------- runs
def run_id(pack: str, side: str, total: int, content: int | None = None) -> str:
    return f"transfer-{pack}-{side}-{total}" + (f"-c{content}" if content else "")


def ensure_run(run_dir: Path, pack: str, side: str, total: int, console: Console,
               content: int | None = None) -> dict[str, Any]:
    """The run of one side; ``content``: the pack's content version (default: newest)."""
    rid = run_id(pack, side, total, content)
    layouts = LAYOUTS[pack][0 if side == "train" else 1]
    locales = LOCALES[side]
    info: dict[str, Any] = {"run_id": rid, "archetypes": layouts, "locales": locales,
                            "documents": total, "content": content or "newest"}
    if (run_dir / "out" / rid / "manifest.json").exists():
        return {**info, "reused": True}
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    cmd = [sys.executable, "-m", "docfleet", "run", "--run-id", rid, "--pack", pack,
           "--total", str(total), "--tasks", "2",
           "--state", f"sqlite:///{run_dir / 'state.db'}", "--out", f"file://{run_dir / 'out'}",
           "--log-dir", str(run_dir / "logs" / rid), "--option", "format=pdf",
           "--option", "conditions=clean", "--option", f"archetypes={layouts}",
           "--option", f"locales={locales}",
           *(["--option", f"content={content}"] if content else [])]
    console.print(f"[dim]{pack} {side}: docfleet run --total {total} ({layouts}; "
                  f"{locales}) …[/dim]")
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    return {**info, "reused": False, "run_wall_s": round(time.perf_counter() - t0, 1)}


# --------------------------------------------------------------------------- candidates
@dataclass
class Candidate:
    """One printed amount or date-like string a document offers for a role."""

    document: int
    role: str
    text: str  # the candidate as printed (normalised)
    value: Decimal | None  # amounts only
    positive: bool  # the golden target (training label)
    correct: bool  # picking it finds the field (evaluation)
    features: dict[str, float] = field(default_factory=dict)


def _tokens(prefix: str, text: str) -> dict[str, float]:
    """Bag of lower-cased words (digits as 0) and character 3-grams of ``text``."""
    t = re.sub(r"\d", "0", normalise(text).casefold())
    out: dict[str, float] = {}
    for word in t.split():
        out[f"{prefix}w:{word}"] = 1.0
    letters = re.sub(r"[\d\W_]+", " ", t).strip()
    padded = f" {letters} "
    for i in range(len(padded) - 2):
        out[f"{prefix}c:{padded[i:i + 3]}"] = 1.0
    return out


def _value(text: Any) -> Decimal | None:
    try:
        return abs(Decimal(str(text)))
    except (InvalidOperation, ValueError):
        return None


@dataclass
class Document:
    document: int
    minor: int
    lines: list[dict[str, Any]]
    heights: dict[int, float]
    widths: dict[int, float]
    target_lines: dict[str, set[tuple[int, int]]]  # role → lines printing the target
    target_value: dict[str, Decimal | None]
    target_text: dict[str, str]


def documents(reader: RunReader, spec_pack: str) -> list[Document]:
    """The run's documents with what the extractor may read (lines, page sizes) and the
    golden answers (kept apart: only labels and scoring use them)."""
    spec = SPECS[spec_pack]
    targets = {"total": spec.targets["total"], "date": spec.targets["date"]}
    out: list[Document] = []
    for part in reader.parts():
        docs = reader.shard(part, spec.document_table).to_pylist()
        grouped: dict[str, dict[int, list[dict[str, Any]]]] = {}
        for table in ("fields", "words", "lines", "pages"):
            rows: dict[int, list[dict[str, Any]]] = defaultdict(list)
            for row in reader.shard(part, table).to_pylist():
                rows[row["document"]].append(row)
            grouped[table] = rows
        for doc in docs:
            d = doc["document"]
            fields = grouped["fields"][d]
            target_lines: dict[str, set[tuple[int, int]]] = {}
            value: dict[str, Decimal | None] = {}
            text: dict[str, str] = {}
            for role, name in targets.items():
                target_lines[role] = {(w["page"], w["text_line"]) for w in grouped["words"][d]
                                      if w["field"] == name}
                first = next((f for f in fields if f["field"] == name
                              and f["occurrence"] == 0), None)
                value[role] = _value(first["value"]) if first else None
                text[role] = " ".join(normalise(first["text"]).split()) if first else ""
            pages = grouped["pages"][d]
            out.append(Document(
                d, MINOR_UNITS.get(doc["currency"], 2),
                sorted(grouped["lines"][d], key=lambda r: (r["page"], r["text_line"])),
                {p["page"]: p["height"] for p in pages}, {p["page"]: p["width"] for p in pages},
                target_lines, value, text))
    return out


def _neighbours(lines: list[dict[str, Any]]) -> dict[tuple[int, int], tuple[str, str]]:
    """Each line's left neighbour on its row and the line above it (text, or "")."""
    out: dict[tuple[int, int], tuple[str, str]] = {}
    by_page: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        by_page[line["page"]].append(line)
    for rows in by_page.values():
        for line in rows:
            cy, h = (line["y0"] + line["y1"]) / 2, max(line["y1"] - line["y0"], 1.0)
            left = [r for r in rows if r is not line and abs((r["y0"] + r["y1"]) / 2 - cy)
                    < h / 2 and r["x1"] <= line["x0"] + 1]
            above = [r for r in rows if r["y1"] <= line["y0"] + 1 and r is not line
                     and r["x0"] < line["x1"] and line["x0"] < r["x1"]]
            out[(line["page"], line["text_line"])] = (
                max(left, key=lambda r: r["x1"])["text"] if left else "",
                max(above, key=lambda r: r["y1"])["text"] if above else "")
    return out


def candidates(doc: Document) -> list[Candidate]:
    """Every amount (role total) and date-like string (role date) the document prints,
    with its features."""
    near = _neighbours(doc.lines)
    heights = [ln["y1"] - ln["y0"] for ln in doc.lines] or [1.0]
    median_h = statistics.median(heights) or 1.0
    last_page = max(doc.heights) if doc.heights else 1
    found: list[tuple[dict[str, Any], str, Any, bool]] = []  # line, role, item, marked
    for line in doc.lines:
        seen = scan(line["text"], doc.minor)
        for a in seen.amounts:
            found.append((line, "total", a, a.marked))
        for s, e in seen.dates:
            found.append((line, "date", (s, e, seen.text), False))
    values = sorted({item.value for _, role, item, _ in found if role == "total"},
                    reverse=True)
    top = values[0] if values else Decimal(1)
    n_dates = sum(1 for _, role, _, _ in found if role == "date")
    out: list[Candidate] = []
    order = {"total": 0, "date": 0}
    for line, role, item, marked in found:
        key = (line["page"], line["text_line"])
        left, above = near[key]
        page_h = doc.heights.get(line["page"]) or 1.0
        page_w = doc.widths.get(line["page"]) or 1.0
        if role == "total":
            value: Decimal | None = item.value
            printed = line["text"]
            rest = normalise(printed)[:item.start] + " 0 " + normalise(printed)[item.end:]
            correct = value == doc.target_value["total"]
        else:
            s, e, t = item
            value = None
            printed = " ".join(t[s:e].split())
            rest = t[:s] + " 0 " + t[e:]
            correct = printed == doc.target_text["date"]
        positive = correct and key in doc.target_lines[role]
        feats: dict[str, float] = {
            **_tokens("s:", rest), **_tokens("l:", left), **_tokens("a:", above),
            "y": (line["y0"] + line["y1"]) / 2 / page_h,
            "x": (line["x0"] + line["x1"]) / 2 / page_w,
            "right": line["x1"] / page_w,
            "last_page": float(line["page"] == last_page),
            "height": (line["y1"] - line["y0"]) / median_h,
            "label_left": float(bool(left.strip())),
            "alone": float(normalise(line["text"]).strip() == printed.strip()),
            "order": order[role] / max(1, len(found)),
        }
        order[role] += 1
        if role == "total" and value is not None:
            rank = values.index(value)
            feats.update({
                "rank": rank / max(1, len(values) - 1), "is_max": float(rank == 0),
                "share": float(value / top) if top else 0.0, "marked": float(marked),
                "same": min(5, sum(1 for _, r, it, _ in found if r == "total"
                                   and it.value == value)) / 5,
                "decimals": float("." in str(value)),
            })
        else:
            feats.update({f"shape:{shape(printed)}": 1.0, "n_dates": min(n_dates, 10) / 10})
        out.append(Candidate(doc.document, role, printed, value, positive, correct,
                             {f"{role}|{k}": v for k, v in feats.items()}))
    return out


# --------------------------------------------------------------------------- model
def fit(cands: list[Candidate]) -> Any:
    """A logistic regression over the candidates' features; None when the training
    candidates are all of one class (every receipt prints one date: any pick is it)."""
    labels = [int(c.positive) for c in cands]
    if len(set(labels)) < 2:
        return None
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(DictVectorizer(), LogisticRegression(C=1.0, max_iter=2000,
                                                               class_weight="balanced"))
    model.fit([c.features for c in cands], labels)
    return model


def scores(model: Any, cands: list[Candidate]) -> list[float]:
    if model is None:  # no negative was seen: the first candidate in reading order
        return [1.0 - i / len(cands) for i in range(len(cands))]
    return [float(p) for p in model.predict_proba([c.features for c in cands])[:, 1]]


def rule(cands: list[Candidate]) -> Candidate:
    """The rule a model needs no training for: the largest amount is the total, the first
    date-like string (reading order) is the date."""
    if cands[0].role == "total":
        return max(cands, key=lambda c: c.value or 0)
    return cands[0]


def evaluate(models: dict[str, Any], docs: list[Document]) -> dict[str, Any]:
    """Per role: documents, found share, the rule's found share (:func:`rule`), ceiling
    (some candidate right)."""
    result: dict[str, Any] = {}
    per_doc = [(d, candidates(d)) for d in docs]
    for role in ROLES:
        found = ceiling = n = by_rule = 0
        for doc, cands in per_doc:
            if doc.target_value[role] is None and not doc.target_text[role]:
                continue
            n += 1
            mine = [c for c in cands if c.role == role]
            if not mine:
                continue
            ceiling += any(c.correct for c in mine)
            by_rule += rule(mine).correct
            scored = scores(models[role], mine)
            best = max(range(len(mine)), key=lambda i: scored[i])
            found += mine[best].correct
        result[role] = {"documents": n, "found": found / n if n else None,
                        "rule": by_rule / n if n else None,
                        "ceiling": ceiling / n if n else None}
    return result


def transfer(pack: str, train_reader: RunReader, tests: dict[str, RunReader]
             ) -> dict[str, Any]:
    """Train on 4 in 5 of ``train_reader``'s documents; score the rest and each run of
    ``tests`` (name → reader)."""
    train_docs = documents(train_reader, pack)
    fit_docs = [d for d in train_docs if d.document % HELD_OUT]
    held = [d for d in train_docs if not d.document % HELD_OUT]
    cands = [c for d in fit_docs for c in candidates(d)]
    models = {role: fit([c for c in cands if c.role == role]) for role in ROLES}
    return {"train_documents": len(fit_docs), "in_distribution": evaluate(models, held),
            **{name: evaluate(models, documents(reader, pack))
               for name, reader in tests.items()}}


# --------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packs", default=",".join(LAYOUTS))
    parser.add_argument("--train-total", type=int, default=600)
    parser.add_argument("--test-total", type=int, default=300)
    parser.add_argument("--run-dir", type=Path, default=None,
                        help="keep the runs here and reuse complete ones")
    parser.add_argument("--out", type=Path, default=RESULTS / "transfer.json")
    parser.add_argument("--train-content", type=int, default=None,
                        help="the train run's content version (default: the pack's newest)")
    parser.add_argument("--test-content", type=int, default=None,
                        help="the unseen runs' content version (default: the pack's newest)")
    args = parser.parse_args()
    try:
        import sklearn
    except ImportError:
        raise SystemExit("bench/transfer.py needs scikit-learn: pip install -e '.[bench]'"
                         ) from None
    console = Console()
    packs = [p for p in args.packs.split(",") if p]
    unknown = [p for p in packs if p not in LAYOUTS]
    if unknown:
        raise SystemExit(f"no transfer configuration for {', '.join(unknown)}; known: "
                         f"{', '.join(LAYOUTS)}")
    result: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "scikit_learn": sklearn.__version__, "load_before": list(os.getloadavg())},
        "locales": LOCALES, "layouts": LAYOUTS,
        "held_out": f"document % {HELD_OUT} == 0 of the train run", "packs": {},
    }
    with tempfile.TemporaryDirectory(prefix="docfleet-bench-transfer-") as tmp:
        run_dir = args.run_dir or Path(tmp)
        run_dir.mkdir(parents=True, exist_ok=True)
        for pack in packs:
            train = ensure_run(run_dir, pack, "train", args.train_total, console,
                               args.train_content)
            unseen = ensure_run(run_dir, pack, "test", args.test_total, console,
                                args.test_content)
            script = ensure_run(run_dir, pack, "script", args.test_total, console,
                                args.test_content)
            out = f"file://{run_dir / 'out'}"
            t0 = time.perf_counter()
            scores = transfer(pack, RunReader(out, train["run_id"]),
                              {"unseen": RunReader(out, unseen["run_id"]),
                               "unseen_script": RunReader(out, script["run_id"])})
            result["packs"][pack] = {"runs": {"train": train, "unseen": unseen,
                                              "unseen_script": script}, **scores,
                                     "seconds": round(time.perf_counter() - t0, 1)}
            console.print(f"{pack}: {json.dumps(scores)}")
    result["machine"]["load_after"] = list(os.getloadavg())
    table = Table(title="Transfer: a generic extractor trained on one docfleet configuration")
    for col in ("pack", "field", "in-distribution", "unseen layouts + sibling locales",
                "rule", "ceiling", "unseen layouts + ja/ar", "rule ", "ceiling "):
        table.add_column(col, justify="left" if col in ("pack", "field") else "right")
    for pack, r in result["packs"].items():
        for role in ROLES:
            i, u, x = r["in_distribution"][role], r["unseen"][role], r["unseen_script"][role]
            table.add_row(pack, role, _pct(i["found"]), _pct(u["found"]), _pct(u["rule"]),
                          _pct(u["ceiling"]), _pct(x["found"]), _pct(x["rule"]),
                          _pct(x["ceiling"]))
    console.print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    console.print(f"wrote {args.out}")


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f} %"


if __name__ == "__main__":
    main()
