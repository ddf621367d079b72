"""The diversity report (``docfleet.export.diversity``, issue 25) held to account: its
recognisers on hand-made strings and rows, and its figures on real runs (20 receipts and
the shared 24-invoice run through ``docfleet run --tasks 2``) against values recomputed
here, independently, from the golden rows."""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter, defaultdict
from decimal import Decimal
from typing import Any

import pytest
from exportlib import CHROMIUM, Run, bench_run, fleet_run, invoice_run, invoke

from docfleet.export import diversity
from docfleet.export.printed import (
    amount_shape,
    families,
    find_amounts,
    find_dates,
    find_times,
    matches_family,
    normalise,
    scan,
    shape,
)
from docfleet.export.reader import RunReader
from docfleet.packs import available_packs, load_pack
from docfleet.packs.sdk.money import MINOR_UNITS
from support.needs import require

# --------------------------------------------------------------------------- recognisers


def test_shape_keeps_digits_and_separators_and_folds_letter_runs() -> None:
    assert shape("Inv-2024/07") == "Aa-9999/99"
    assert shape("TOTAL") == "A" and shape("Total due") == "Aa a"
    assert shape("٠٦/١٢/٢٠٢٤") == "99/99/9999"  # Arabic-Indic digits are digits
    assert shape("2023年11月17日") == "9999a99a99a"  # caseless letters are "a"
    assert shape("5 mars 2024") == shape("5 juin 2024") == "9 a 9999"
    assert shape("1\u00a0234,50\u202f€") == "9 999,99 €"  # every space is one space


def test_amount_shape_folds_the_integer_part_not_the_format() -> None:
    assert amount_shape("£21,295.26") == amount_shape("£3.00") == "£9.99"
    assert amount_shape("1\u00a0234,50\u00a0€") == "9,99 €"
    assert amount_shape("€\u00a01.114,65") == "€ 9,99"
    assert amount_shape("¥960,806") == "¥9"
    assert amount_shape("503.67\u00a0ر.س") != amount_shape("SAR\u00a0503.67")


@pytest.mark.parametrize(("text", "minor", "expected"), [
    ("CHF 12.38", 2, [("12.38", True)]),
    ("SAR24.00", 2, [("24.00", True)]),
    ("-€ 0,67", 2, [("0.67", True)]),
    ("USt. 20 % auf € 1.114,65", 2, [("1114.65", True)]),
    ("1\u00a0234,50\u00a0€", 2, [("1234.50", True)]),
    ("2 x CHF 6.19", 2, [("6.19", True)]),
    ("Subtotal 17.62", 2, [("17.62", False)]),  # bare, the currency's two decimals
    ("$0.0676", 2, [("0.0676", True)]),  # marked: any decimals
    ("1.512 kg x ¥369", 0, [("369", True)]),
    ("¥1,290,480 1,470", 0, [("1290480", True), ("1470", False)]),  # bare yen: grouped
    ("KWD-757", 2, []),  # an article code, not Kuwaiti dinars
    ("Rabatt -15 % 12.50 %", 2, []),  # percentages
    ("Tel. +43 732 321835 Till 7", 2, []),  # bare integers
    ("Date 09.05.2023 12:01", 2, []),  # a date and a time
    ("0,75L Huile 2.5", 2, []),  # a unit glued on; one decimal
])
def test_find_amounts(text: str, minor: int, expected: list[tuple[str, bool]]) -> None:
    assert [(str(a.value), a.marked) for a in find_amounts(text, minor)] == expected


@pytest.mark.parametrize(("text", "dates"), [
    ("Date 09/22/2023", ["09/22/2023"]),
    ("2025/10/01 〜 2025/10/31", ["2025/10/01", "2025/10/31"]),
    ("Fällig am 10.07.2023", ["10.07.2023"]),
    ("التاريخ ٢٧/٠٢/٢٠٢٥", ["27/02/2025"]),
    ("Date de commande 20 avril 2025", ["20 avril 2025"]),
    ("5. März 2024 / March 5, 2024 / 05-Mar-24", ["5. März 2024", "March 5, 2024",
                                                 "05-Mar-24"]),
    ("請求日 2023年11月17日", ["2023年11月17日"]),
    ("Ref INV-20240917-001", ["20240917"]),
    ("Statement no. 2025/10-2 Receipt 292/58276 Total 12.05", []),
    ("32/13/2024 12/31/1850", []),  # no such day / month / year
])
def test_find_dates(text: str, dates: list[str]) -> None:
    t = normalise(text)
    assert [t[s:e] for s, e in find_dates(text)] == dates


def test_find_times() -> None:
    t = "Heure 12:01 / 2:05 pm / 14h05 / 時刻 16:03 / 09.05.2023 / 1:1000 / 12.38"
    assert [normalise(t)[s:e] for s, e in find_times(t)] == ["12:01", "2:05 pm", "14h05",
                                                              "16:03"]


@pytest.mark.parametrize(("text", "expected"), [
    ("TOTAL", {"total"}), ("Subtotal", {"total"}), ("Zwischensumme netto", {"total"}),
    ("Gesamtbetrag", {"total"}), ("Total TTC", {"total"}), ("小計（税抜）", {"total"}),  # noqa: RUF001
    ("ご請求金額（税込）", {"total"}), ("الإجمالي Total", {"total"}),  # noqa: RUF001
    ("Closing balance", {"balance"}), ("Neuer Kontostand", {"balance"}),
    ("Invoice date", {"date"}), ("Rechnungsdatum", {"date"}), ("発行日", {"date"}),
    ("Receipt no.", {"number"}), ("Rechnungsnr.", {"number"}), ("Ticket n°", {"number"}),
    ("請求書番号", {"number"}), ("رقم الفاتورة No.", {"number"}),
    ("Note: now or never", set()), ("Thank you for your visit!", set()),
])
def test_keyword_families(text: str, expected: set[str]) -> None:
    assert families(text) == expected


# --------------------------------------------------------------------------- one document


def _receipt_rows() -> dict[str, Any]:
    """A hand-made receipt: TOTAL 10.00, tendered 20.00 (larger), two date-like strings,
    a time, one free line; the total labelled twice (two printings)."""
    doc = {"document": 7, "locale": "en-GB", "currency": "GBP", "page_height": 400.0}
    fields = [
        {"field": "total", "line": None, "occurrence": 0, "text": "£10.00", "value": "10.00",
         "page": 1, "y0": 190.0, "y1": 210.0},
        {"field": "total", "line": None, "occurrence": 1, "text": "£10.00", "value": "10.00",
         "page": 1, "y0": 300.0, "y1": 310.0},
        {"field": "tendered", "line": None, "occurrence": 0, "text": "£20.00",
         "value": "20.00", "page": 1, "y0": 220.0, "y1": 230.0},
        {"field": "issue_date", "line": None, "occurrence": 0, "text": "01/02/2024",
         "value": "2024-02-01", "page": 1, "y0": 20.0, "y1": 30.0},
        {"field": "item_name", "line": 1, "occurrence": 0, "text": "Tea", "value": "Tea",
         "page": 1, "y0": 100.0, "y1": 110.0},
    ]
    labels = [{"label_id": 0, "kind": "label", "name": "total", "text": "TOTAL"},
              {"label_id": 1, "kind": "label", "name": "total", "text": "Total"},
              {"label_id": 2, "kind": "header", "name": "title", "text": "RECEIPT"}]
    links = [{"label_id": 0, "field": "total"}, {"label_id": 1, "field": "total"}]
    texts = ["RECEIPT", "Date 01/02/2024 10:15", "Tea £10.00", "TOTAL", "£10.00",
             "Cash £20.00", "Total £10.00", "Best before 03/04/2024", "Thanks, 2 items!"]
    lines = [{"page": 1, "text_line": i, "text": t} for i, t in enumerate(texts)]
    owners = {0: (None, 2), 1: ("issue_date", None), 2: ("item_name", None),
              3: (None, 0), 4: ("total", None), 5: ("tendered", None), 6: ("total", 1),
              7: (None, None), 8: (None, None)}
    words = [{"page": 1, "text_line": i, "field": f, "label_id": lab}
             for i, (f, lab) in owners.items()]
    pages = [{"page": 1, "height": 400.0}]
    return {"doc": doc, "fields": fields, "labels": labels, "links": links, "lines": lines,
            "words": words, "pages": pages}


def test_document_facts_from_hand_made_rows() -> None:
    r = _receipt_rows()
    spec = diversity.SPECS["receipt"]
    facts = diversity.document_facts(spec, r["doc"], r["fields"], r["labels"], r["links"],
                                     r["lines"], r["words"], r["pages"])
    assert facts.language == "en"
    assert sorted(facts.role_labels["total"]) == ["TOTAL", "Total"]
    assert "date" not in facts.role_labels or facts.role_labels["date"] == []
    assert facts.role_formats["total"] == "£9.99"
    assert facts.role_y["total"] == pytest.approx(200 / 400)  # occurrence 0, not 1
    assert facts.keyword_lines["total"] == 2  # "TOTAL", "Total £10.00"
    assert facts.amounts == 4 and facts.marked_amounts == 4
    assert facts.total_is_largest is False  # £20.00 tendered
    assert facts.dates == 2 and facts.time
    assert {"field:total", "field:tendered", "label:total", "header:title"} <= facts.elements
    assert facts.free_lines == {"best before #/#/#", "thanks, # items!"}
    summed = diversity.Diversity(spec)
    summed.add(facts)
    report = summed.report()
    assert report["targets"]["total"]["labels"]["en"] == {"raw": 2, "casefolded": 1,
                                                          "top": ["total"]}
    flagged = {e["element"] for e in report["flagged"]}
    assert "line:thanks, # items!" in flagged
    assert "field:total" not in flagged and "field:tendered" not in flagged  # required, common
    assert "header:title" not in flagged  # common: receipts name themselves


def test_every_document_pack_has_a_spec_naming_its_document_table() -> None:
    """A new document pack must add a :data:`diversity.SPECS` entry, or say in
    :data:`diversity.NOT_MEASURED` why the report does not fit it."""
    for name in available_packs():
        tables = load_pack(name).tables({})
        if "lines" not in tables:
            continue  # no printed layout (the bench and catalogue packs)
        spec = diversity.SPECS.get(name)
        if spec is None and name in diversity.NOT_MEASURED:
            continue  # the card says why (forms print no amounts)
        assert spec is not None, f"pack {name} has no diversity spec"
        doc = tables[spec.document_table]
        assert {"document", "locale", "currency"} <= set(doc.names)
        assert set(spec.targets) == set(diversity.ROLES) and set(spec.families) == \
            set(diversity.ROLES)
        assert spec.status("field:" + spec.targets["total"])[0] == "required"


# --------------------------------------------------------------------------- real runs

_RECEIPTS: dict[str, Run] = {}


@pytest.fixture(scope="module", params=["receipt", "invoice"])
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Run:
    require(CHROMIUM is not None, "Chromium (/usr/bin/chromium)")
    if request.param == "invoice":
        return invoice_run(tmp_path_factory)
    if "r" not in _RECEIPTS:
        _RECEIPTS["r"] = fleet_run(tmp_path_factory.mktemp("receipt-run"), "div-r", 20, 5,
                                   "receipt")
    return _RECEIPTS["r"]


def _rows(run: Run, table: str) -> list[dict[str, Any]]:
    return run.shards(table).to_pylist()


def _by_doc(rows: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        out[r["document"]].append(r)
    return out


def _is_amount(text: str, minor: int, codes: set[str]) -> bool:
    """The amount rule stated on one field's own text, written apart from the recogniser:
    a number alone (a sign and spaces allowed), marked (a currency sign, ``ر.س`` or one
    of the document's currency ``codes``) or carrying exactly the currency's decimals
    (yen: grouped by commas, no decimals)."""
    t = normalise(text).strip()
    bare = "".join(" " if unicodedata.category(c) == "Sc" else c for c in t)
    for code in [*codes, "ر.س"]:
        bare = bare.replace(code, " ")
    marked = bare != t
    bare = bare.strip().strip("-\u2212+").strip()
    if not re.fullmatch(r"\d[\d.,' ]*", bare):
        return False
    if marked:
        return True
    if minor == 0:  # yen have no decimals
        return bool(re.fullmatch(r"\d{1,3}(,\d{3})+", bare))
    last = re.search(r"[.,](\d+)$", bare)
    return bool(last and len(last.group(1)) == minor)


def _marked(text: str, codes: set[str]) -> bool:
    return any(unicodedata.category(c) == "Sc" for c in text) or any(
        code in text for code in [*codes, "ر.س"])


class Golden:
    """The run's golden rows, grouped by document, and what they say independently."""

    def __init__(self, run: Run, spec: diversity.PackSpec) -> None:
        self.docs = {d["document"]: d for d in _rows(run, spec.document_table)}
        self.fields = _by_doc(_rows(run, "fields"))
        self.labels = _by_doc(_rows(run, "labels"))
        self.links = _by_doc(_rows(run, "links"))
        self.lines = _by_doc(_rows(run, "lines"))
        self.words = _by_doc(_rows(run, "words"))
        self.pages = _by_doc(_rows(run, "pages"))

    def lang(self, d: int) -> str:
        return str(self.docs[d]["locale"]).split("-")[0]

    def minor(self, d: int) -> int:
        return MINOR_UNITS.get(self.docs[d]["currency"], 2)

    def codes(self, d: int) -> set[str]:
        doc = self.docs[d]
        return {c for c in (doc["currency"], doc.get("fx_currency")) if c}

    def amount_fields(self, d: int) -> list[dict[str, Any]]:
        return [f for f in self.fields[d] if not re.fullmatch(r"\d{4}-\d\d-\d\d", f["value"])
                and _is_amount(f["text"], self.minor(d), self.codes(d))]

    def first(self, d: int, name: str) -> dict[str, Any] | None:
        rows = [f for f in self.fields[d] if f["field"] == name and f["occurrence"] == 0]
        rows.sort(key=lambda f: f["line"] is not None)
        return rows[0] if rows else None


def test_printed_amounts_are_the_golden_fields_that_read_as_amounts(run: Run) -> None:
    """Line by line, the recogniser finds exactly the values of the golden fields printed
    on that line whose own text is an amount by the rule (an exchange-rate line, which
    prints two marked numbers, aside)."""
    spec = diversity.SPECS[str(run.manifest["parameters"]["pack"])]
    g = Golden(run, spec)
    checked = 0
    for d, lines in g.lines.items():
        on_line: dict[tuple[int, int], set[tuple[str, Any, int]]] = defaultdict(set)
        for w in g.words[d]:
            if w["field"] is not None:
                on_line[(w["page"], w["text_line"])].add((w["field"], w["line"],
                                                          w["occurrence"]))
        amounts = {(f["field"], f["line"], f["occurrence"]): f for f in g.amount_fields(d)}
        for line in lines:
            owners = on_line[(line["page"], line["text_line"])]
            if any(o[0] == "fx_rate" for o in owners):
                continue
            expected = sorted(abs(Decimal(amounts[o]["value"])) for o in owners if o in amounts)
            found = sorted(a.value for a in scan(line["text"], g.minor(d)).amounts)
            assert found == expected, (d, line["text"], owners)
            checked += 1
    assert checked > 100


def test_report_matches_the_golden_rows(run: Run) -> None:
    pack = str(run.manifest["parameters"]["pack"])
    spec = diversity.SPECS[pack]
    g = Golden(run, spec)
    report = diversity.measure_run(RunReader(run.out, run.run_id))
    n = len(g.docs)
    assert report["documents"] == n
    assert report["languages"] == dict(sorted(Counter(g.lang(d) for d in g.docs).items()))
    # labels: links joined to labels, per language, raw and case-folded
    for role, name in spec.targets.items():
        raw: dict[str, set[str]] = defaultdict(set)
        labelled = printed = 0
        ys = []
        for d in g.docs:
            text = {lab["label_id"]: lab["text"] for lab in g.labels[d]}
            mine = {text[k["label_id"]] for k in g.links[d] if k["field"] == name}
            raw[g.lang(d)] |= mine
            target = g.first(d, name)
            if target is not None:
                printed += 1
                labelled += bool(mine)
                height = {p["page"]: p["height"] for p in g.pages[d]}[target["page"]]
                ys.append((target["y0"] + target["y1"]) / 2 / height)
        got = report["targets"][role]
        for lang in report["languages"]:
            assert got["labels"][lang]["raw"] == len(raw[lang])
            assert got["labels"][lang]["casefolded"] == len(
                {" ".join(t.casefold().split()) for t in raw[lang]})
        assert got["labelled_share"] == pytest.approx(labelled / printed)
        assert got["position_y"]["mean"] == pytest.approx(statistics.fmean(ys))
        assert got["position_y"]["stdev"] == pytest.approx(statistics.stdev(ys))
    # amounts, the largest one, currency marks, dates, times
    largest = have_total = 0
    counts, majority, with_amounts, two_dates, timed = [], 0, 0, 0, 0
    for d in g.docs:
        amounts = g.amount_fields(d)
        fx = sum(1 for f in g.fields[d] if f["field"] == "fx_rate")
        counts.append(len(amounts) + 2 * fx)
        total = g.first(d, spec.targets["total"])
        if total is not None:
            have_total += 1
            value = abs(Decimal(total["value"]))
            largest += all(abs(Decimal(f["value"])) <= value for f in amounts)
        if amounts and not fx:
            with_amounts += 1
            marked = sum(1 for f in amounts if _marked(f["text"], g.codes(d)))
            majority += 2 * marked > len(amounts)
        dates = {" ".join(normalise(f["text"]).split()) for f in g.fields[d]
                 if re.fullmatch(r"\d{4}-\d\d-\d\d", f["value"])}
        two_dates += len(dates) >= 2
        timed += any(re.fullmatch(r"\d{1,2}:\d\d(:\d\d)?", f["value"]) for f in g.fields[d])
    assert report["amounts"]["mean_per_document"] == pytest.approx(statistics.fmean(counts))
    assert report["amounts"]["total_is_largest_share"] == pytest.approx(largest / have_total)
    assert report["dates"]["share_ge_2"] == pytest.approx(two_dates / n)
    assert report["time_share"] == pytest.approx(timed / n)
    if not any(f["field"] == "fx_rate" for rows in g.fields.values() for f in rows):
        assert report["currency"]["majority_share"] == pytest.approx(majority / with_amounts)
    # elements: fields and labels per document; free lines per language
    fields_per = Counter(name for d in g.docs for name in {f["field"] for f in g.fields[d]})
    shares = {e["element"]: e for e in report["elements"] if "language" not in e}
    for name, k in fields_per.items():
        if k / n >= 0.05:
            row = shares[f"field:{name}"]
            assert row["share"] == pytest.approx(k / n)
            assert row["flag"] == (spec.status(f"field:{name}")[0] == "optional"
                                   and k / n > diversity.MAX_OPTIONAL_SHARE)
    free: dict[str, Counter[str]] = defaultdict(Counter)
    for d in g.docs:
        owned = {(w["page"], w["text_line"]) for w in g.words[d]
                 if w["field"] is not None or w["label_id"] is not None}
        keys = {re.sub(r"\d+", "#", " ".join(normalise(line["text"]).casefold().split()))
                for line in g.lines[d] if (line["page"], line["text_line"]) not in owned}
        free[g.lang(d)].update(keys)
    langs = Counter(g.lang(d) for d in g.docs)
    expected = {(f"line:{k}", lang): v / langs[lang] for lang, c in free.items()
                for k, v in c.items() if v / langs[lang] >= 0.05}
    assert {(e["element"], e["language"]): e["share"] for e in report["elements"]
            if "language" in e} == pytest.approx(expected)
    # look-alike lines: every line holding a key of the total (or subtotal) that reads as
    # a total ("Amount due" does; content 2 also prints keys such as "Please pay") counts
    seen = 0
    for d in list(g.docs)[:20]:
        facts = diversity.document_facts(spec, g.docs[d], g.fields[d], g.labels[d],
                                         g.links[d], g.lines[d], g.words[d], g.pages[d])
        keyed = {(w["page"], w["text_line"]) for w in g.words[d] if w["label_id"] in {
            lab["label_id"] for lab in g.labels[d]
            if {"total", "subtotal"} & set(lab["name"].split())
            and matches_family("total", lab["text"])}}
        assert facts.keyword_lines["total"] >= len(keyed)
        seen += len(keyed)
    assert seen > 0


def test_card_prints_the_report(run: Run) -> None:
    done = invoke("card", run.run_id, "--out", run.out, "--state", run.state)
    assert done.returncode == 0, done.stderr
    card = done.stdout
    section = card[card.index("## Diversity"):card.index("## Tables")]
    report = diversity.measure_run(RunReader(run.out, run.run_id))
    met, judged = diversity.verdicts(report)
    assert f"Targets met: {met} of {judged}." in section
    for f in diversity.figures(report):
        verdict = "-" if f.passed is None else ("pass" if f.passed else "FAIL")
        assert f"| {f.name} | {f.shown} | {f.target or '-'} | {verdict} |" in section, f.name


def test_card_of_a_pack_without_a_printed_layout_says_it_is_not_measured(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    run = bench_run(tmp_path_factory)
    done = invoke("card", run.run_id, "--out", run.out, "--state", run.state)
    assert done.returncode == 0, done.stderr
    assert "## Diversity\n\nNot measured: no diversity spec for pack 'bench'." in done.stdout
