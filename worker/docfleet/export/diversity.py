"""How much a run's documents vary, measured from its golden tables alone (issue 25).

A model trained on synthetic documents learns whatever they share; this module measures
what they share. It reads one unit's golden tables at a time (the pack's document table,
``fields``, ``labels``, ``links``, ``lines``, ``words``, ``pages``), reduces every document
to a :class:`DocumentFacts`, and sums those in a :class:`Diversity`, whose
:meth:`~Diversity.report` is a JSON-ready dict and whose :func:`figures` hold each figure
beside its target (the ``TARGET_*`` constants) with a verdict. Pure functions over rows:
no rendering, no blob store (:func:`measure_run` is the one that takes a
:class:`~docfleet.export.reader.RunReader`). ``docfleet card`` (its "Diversity" section)
and ``bench/diversity.py`` both print what this module computes.

Two sources, never mixed:

- **What the golden tables say a thing is.** A *label of a field* is the text of a
  ``labels`` row that a ``links`` row joins to a printing of that field. A *target* is a
  golden field (the pack's :class:`PackSpec` names them: the total, the date, the document
  number); its printed text and box are its ``fields`` row of occurrence 0.
- **What is printed.** Look-alikes, amounts, date-like strings, times and currency marks
  are found in the printed text (``lines.text``) by the recognisers of
  :mod:`docfleet.export.printed` (``shape``, ``amount_shape``, ``find_amounts``,
  ``find_dates``, ``find_times``, ``KEYWORDS``), which know nothing of fields: a line
  "Total savings 3.20" is a total-like line whether or not the generator meant it as one.

Figures (per pack; a *document* is one row of the pack's document table):

- **labels** (per target role and per header field): distinct label strings per language
  (the document's ``locale`` up to the first ``-``), raw and case-folded
  (``str.casefold``, spaces collapsed). Target: ≥ ``TARGET_LABELS_PER_LANGUAGE`` case-folded
  strings in *every* language the run prints, for total, date and document number.
- **labelled share**: documents whose target printing has a linked label.
- **formats**: distinct ``shape`` signatures of the target's printed text
  (``amount_shape`` for money, which also folds the integer part, so magnitude is not
  counted as a format).
- **position**: the target's normalised y (box centre / page height on its page): mean,
  standard deviation and the 10/25/50/75/90 % quantiles.
- **look-alike lines**: printed lines per document matching the target role's keyword
  family (``KEYWORDS``, every language the locales use at once, so a bilingual line
  counts once). Target: ≥ ``TARGET_TOTAL_LINES`` "total"-like lines per document on
  average for the packs in ``TOTAL_LINE_PACKS``.
- **amounts**: printed amounts per document (``find_amounts``); **total is largest**:
  documents whose golden total (absolute value) is at least every printed amount (a tie,
  e.g. exact cash tendered, counts as largest). Target: ≤ ``TARGET_TOTAL_LARGEST``.
- **date-like strings**: distinct date-like strings printed per document
  (``find_dates``); target: ≥ ``TARGET_MULTI_DATE_SHARE`` of documents print ≥ 2.
- **time**: documents printing a time of day (``find_times``); target for the packs in
  ``TIME_PACKS``: ≥ ``TARGET_TIME_SHARE``.
- **currency**: documents where most (over half) of the printed amounts carry a currency
  mark (a currency symbol, the ISO code or a local sign such as ``ر.س``) next to them;
  documents printing no amount are left out. Target: within ``TARGET_CURRENCY_SHARE``
  (the issue's "some documents, not all").
- **elements**: the share of documents printing each *element*: ``field:NAME`` (a golden
  field), ``label:NAME`` (a key labelling field NAME), ``header:NAME`` (a title or
  heading), ``line:TEXT`` (a free line, printed by no field and no label: its case-folded
  text with digit runs as ``#``; its share is over the documents of its language).
  Each pack's :class:`PackSpec` says which elements its document type *requires* (law,
  or the document's very function) and which real documents of the type *commonly*
  print, each with its reason; every other element is *optional*, and an optional one
  printed on more than ``MAX_OPTIONAL_SHARE`` of the documents is flagged. Target: none
  flagged.
- **upper case**: upper-case letters / cased letters printed (information only).
- **subtotal equals total**: documents printing both whose golden values are equal
  (information only; real receipts that print a subtotal: about a fifth).
"""

from __future__ import annotations

import fnmatch
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from docfleet.export.printed import (
    Amount,
    amount_shape,
    families,
    fold,
    free_line_key,
    normalise,
    scan,
    shape,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from docfleet.export.reader import RunReader

# --------------------------------------------------------------------------- targets
#: issue 25's targets, stated on a run of this many documents per pack
TARGET_DOCUMENTS = 1000
#: distinct case-folded labels per language for total, date and document number
TARGET_LABELS_PER_LANGUAGE = 12
#: "total"-like printed lines per document, on average, on these packs
TARGET_TOTAL_LINES = 3.0
TOTAL_LINE_PACKS = ("receipt", "invoice")
#: the total is the largest printed amount on at most this share of documents
TARGET_TOTAL_LARGEST = 0.60
#: at least this share of documents prints two or more date-like strings
TARGET_MULTI_DATE_SHARE = 0.25
#: at least this share of receipts prints a time of day
TARGET_TIME_SHARE = 0.40
TIME_PACKS = ("receipt",)
#: "currency symbol on amounts in some documents, not all": read as at least 5 % and at
#: most 95 % of the documents, so that one stray document does not pass it
TARGET_CURRENCY_SHARE = (0.05, 0.95)
#: no element the document type does not require on more than this share of documents
MAX_OPTIONAL_SHARE = 0.30
#: the roles every pack names a target for
ROLES = ("total", "date", "number")
#: what real documents show, where the issue measured it (printed beside the figure)
REAL_REFERENCE = {"total_largest": "real receipts: under 1/2",
                  "position_mean": "real receipts: 0.57, spread over the page",
                  "multi_date": "real receipts: about 1/4",
                  "time": "real receipts: about 1/2",
                  "subtotal_equals_total": "real receipts: about 1/5",
                  "currency": "most real receipts print bare numbers"}

# --------------------------------------------------------------------------- packs
@dataclass(frozen=True)
class PackSpec:
    """What the report needs to know about a pack. A new document pack adds one
    :data:`SPECS` entry: its document table, which golden field is each role's target,
    which header fields are money and which elements its document type requires or
    commonly prints (those two are never flagged, however often they are printed)."""

    pack: str
    #: the pack's one-row-per-document table (it has ``document``, ``locale``, ``currency``)
    document_table: str
    #: role → golden field name (``total``, ``date``, ``number``)
    targets: Mapping[str, str]
    #: role → :data:`KEYWORDS` family its look-alike lines are counted with
    families: Mapping[str, str]
    #: header fields whose text is money (formats by :func:`amount_shape`)
    money: frozenset[str]
    #: element pattern (:mod:`fnmatch`, over ``field:NAME``, ``label:NAME``,
    #: ``header:NAME``) → why the document type requires it (law, or its very function)
    required: Mapping[str, str]
    #: element pattern → why real documents of the type commonly print it (the issue's own
    #: targets included: a receipt's time), so that a share over the flag line is real
    common: Mapping[str, str] = field(default_factory=dict)
    #: the golden subtotal field, if the pack prints one
    subtotal: str | None = None

    def status(self, element: str) -> tuple[str, str | None]:
        """(``required`` | ``common`` | ``optional``, the first matching reason)."""
        for status, table in (("required", self.required), ("common", self.common)):
            for pattern, reason in table.items():
                if fnmatch.fnmatchcase(element, pattern):
                    return status, reason
        return "optional", None


def _need(reason: str, *names: str, kinds: tuple[str, ...] = ("field", "label")
          ) -> dict[str, str]:
    return {f"{kind}:{name}": reason for name in names for kind in kinds}


_FAMILIES = {"total": "total", "date": "date", "number": "number"}

SPECS: dict[str, PackSpec] = {
    "receipt": PackSpec(
        "receipt", "receipts",
        {"total": "total", "date": "issue_date", "number": "receipt_number"}, _FAMILIES,
        frozenset({"subtotal", "discount_total", "total", "tendered", "change"}),
        required={
            # a till receipt is proof of a sale: who sold, when, what, for how much
            **_need("identifies the seller: every receipt names the shop and where it is",
                    "store_name", "store_address", kinds=("field",)),
            **_need("the date of the sale", "issue_date", kinds=("field",)),
            **_need("what was sold and for how much", "item_name", "item_amount",
                    kinds=("field",)),
            **_need("the amount paid, and the word that names it", "total"),
            **_need("every locale's tax regime has the tax shown (or included) on a receipt",
                    "tax_rate", "tax_amount", "tax_base"),
        },
        common={
            **_need("the issue's own target: >= 40 % of receipts print a time (real: about "
                    "half)", "issue_time"),
            "label:issue_date": "about half of real receipts print a date word",
            "field:receipt_number": "real till receipts nearly all print a transaction "
                                    "number",
            **_need("tender lines (paid by, tendered, change, card slip) are on most real "
                    "receipts, and the issue asks for more of them", "payment_method",
                    "tendered", "paid_total", "change", "card_number", "auth_code"),
            **_need("half of real receipts print quantity and unit price (item tables)",
                    "item_quantity", "item_unit_price"),
            **_need("VAT and GST regimes ask for the seller's tax number on a simplified "
                    "invoice", "store_tax_id"),
            **_need("the issue asks for discount and savings lines as look-alikes",
                    "discount_name", "discount_percent", "discount_amount", "discount_total"),
            **_need("restaurant and cafe receipts print item modifiers (as CORD's do)",
                    "modifier_name", "modifier_amount"),
            "label:receipt_number": "a till receipt's transaction number is printed with "
                                    "its key on most real receipts",
            **_need("most real receipts that print a subtotal print it before tax or "
                    "discounts, and every tax-exclusive one must", "subtotal"),
            **_need("most real receipts print the shop's phone", "store_phone"),
            **_need("POS receipts commonly print the register and the operator", "till",
                    "cashier"),
            **_need("receipts commonly count the items sold (the issue's 'total quantity / "
                    "items' look-alike)", "item_count"),
            **_need("the issue asks for tax summary blocks (per rate: code, net, tax, gross "
                    "and their own total row)", "tax_code", "tax_gross", "tax_total",
                    "tax_base_total", "tax_gross_total"),
            **_need("card payments print the terminal's slip (the issue asks for card "
                    "slips)", "slip_amount", "slip_date", "slip_time", "terminal_id"),
            "header:title": "receipts commonly name themselves (a Saudi simplified tax "
                            "invoice must)",
        },
        subtotal="subtotal"),
    "invoice": PackSpec(
        "invoice", "invoices",
        {"total": "total", "date": "issue_date", "number": "invoice_number"}, _FAMILIES,
        frozenset({"subtotal", "discount_total", "total", "fx_total"}),
        required={
            # the content a full VAT invoice must carry (EU VAT Directive art. 226, UK VAT,
            # an Australian tax invoice, Japan's qualified invoice), and its keys
            **_need("a VAT invoice carries a unique number and its date of issue",
                    "invoice_number", "issue_date"),
            **_need("a VAT invoice names both parties and their addresses", "seller_name",
                    "seller_address", "buyer_name", "buyer_address", kinds=("field",)),
            **_need("a VAT invoice carries the supplier's VAT number", "seller_tax_id"),
            **_need("a VAT invoice lists the goods, quantities, unit prices, amounts and "
                    "rates (an item table names its columns)", "description", "quantity",
                    "unit_price", "net_amount", "line_tax_rate"),
            **_need("a VAT invoice states the taxable amount, tax per rate and the total",
                    "subtotal", "tax_rate", "tax_base", "tax_amount", "total"),
            **_need("a credit note refers to the invoice it corrects and why",
                    "original_invoice", "reason"),
            "header:title": "the document calls itself an invoice (or credit note)",
        },
        common={
            **_need("most real invoices print a due date", "due_date"),
            **_need("most real invoices print a contact line", "seller_phone",
                    "seller_email"),
            **_need("most real invoices print how to pay them", "seller_iban", "seller_bic",
                    "seller_account"),
            "header:bank": "most real invoices print how to pay them",
            **_need("item tables commonly carry article codes and units", "sku", "unit"),
            **_need("the buyer block's key (bill to) is on most real invoices",
                    "buyer_name", "buyer_address", kinds=("label",)),
            **_need("the seller block's key (from, supplier) is common on real invoices",
                    "seller_name", "seller_address", kinds=("label",)),
            **_need("business-to-business invoices commonly quote the buyer's order "
                    "number", "po_number"),
            **_need("an EU invoice between businesses carries the buyer's VAT number "
                    "(intra-community supplies, reverse charge)", "buyer_tax_id"),
            **_need("most real invoices state the VAT in all beside the rates (a VAT "
                    "invoice states the VAT amount payable)", "tax_total"),
        },
        subtotal="subtotal"),
    "purchase_order": PackSpec(
        "purchase_order", "purchase_orders",
        {"total": "total", "date": "issue_date", "number": "po_number"}, _FAMILIES,
        frozenset({"subtotal", "total", "budget_amount", "blanket_value",
                   "released_to_date", "credit_limit"}),
        required={
            # an order is an offer to buy: its number and date, who orders what from whom,
            # delivered where and when, at what price
            **_need("an order is referenced by its number and date", "po_number",
                    "issue_date"),
            **_need("who orders from whom", "buyer_name", "buyer_address", "supplier_name",
                    "supplier_address", kinds=("field",)),
            **_need("where and when to deliver", "ship_to", "delivery_date",
                    kinds=("field",)),
            **_need("what is ordered at what agreed price (an item table names its "
                    "columns)", "description", "quantity", "unit_price", "amount"),
            **_need("the order's value", "total"),
            "header:title": "the document calls itself an order",
        },
        common={
            **_need("most real orders print the buyer's contact", "buyer_phone",
                    "buyer_email", "contact"),
            **_need("orders state their payment terms", "payment_terms"),
            "label:delivery_date": "orders state their delivery date with a key",
            **_need("item tables commonly carry codes, units and line numbers", "sku",
                    "unit", "line_number"),
            **_need("orders usually show net, tax and gross", "subtotal", "tax_rate",
                    "tax_base", "tax_amount", "line_tax_rate"),
            **{f"header:{h}": "the party blocks of an order are headed"
               for h in ("buyer", "supplier", "ship_to")},
        },
        subtotal="subtotal"),
    "bank_statement": PackSpec(
        "bank_statement", "statements",
        {"total": "closing_balance", "date": "issue_date", "number": "statement_number"},
        {"total": "balance", "date": "date", "number": "number"},
        frozenset({"opening_balance", "closing_balance", "total_credits", "total_debits"}),
        required={
            # a statement accounts for one account over one period
            **_need("the bank and the account holder", "bank_name", "holder_name",
                    kinds=("field",)),
            **_need("which account (an IBAN or a domestic account number)", "iban",
                    "account_number"),
            **_need("which period", "period_start", "period_end"),
            **_need("where the period starts and ends", "opening_balance",
                    "closing_balance"),
            **_need("each transaction: its date, what it was and its amount (a table "
                    "names its columns)", "booking_date", "description", "amount", "debit",
                    "credit"),
            **_need("a page carries the balance over to the next", "balance_brought_forward",
                    "balance_carried_forward"),
            "header:title": "the document calls itself a statement",
        },
        common={
            **_need("statements are addressed to the holder", "holder_address",
                    kinds=("field",)),
            "header:holder": "statements are addressed to the holder",
            **_need("most statements print the bank's address and codes", "bank_address",
                    "bic", "routing_number"),
            **_need("most statements are numbered and dated", "statement_number",
                    "issue_date"),
            **_need("most statements print a running balance", "balance"),
            **_need("most statements sum what was paid in and out", "total_credits",
                    "total_debits"),
        }),
}


# --------------------------------------------------------------------------- documents
@dataclass
class DocumentFacts:
    """What one document shows, reduced to what the report sums (see the module
    docstring for each)."""

    document: int
    language: str
    #: role → raw texts of the labels linked to the target's printings
    role_labels: dict[str, list[str]] = field(default_factory=dict)
    #: role → format signature of the target's first printing (absent: not printed)
    role_formats: dict[str, str] = field(default_factory=dict)
    #: role → normalised y of the target's first printing
    role_y: dict[str, float] = field(default_factory=dict)
    #: role → printed lines matching the role's keyword family
    keyword_lines: dict[str, int] = field(default_factory=dict)
    #: header field → raw texts of its linked labels
    field_labels: dict[str, list[str]] = field(default_factory=dict)
    #: header field → format signature of its first printing
    field_formats: dict[str, str] = field(default_factory=dict)
    amounts: int = 0
    marked_amounts: int = 0
    #: None: the total is not printed
    total_is_largest: bool | None = None
    dates: int = 0
    time: bool = False
    elements: set[str] = field(default_factory=set)
    free_lines: set[str] = field(default_factory=set)
    upper: int = 0
    cased: int = 0
    #: None: the document does not print both
    subtotal_equals_total: bool | None = None


def _language(locale: Any) -> str:
    return str(locale).split("-")[0] if locale else "und"


def _minor(currency: Any) -> int:
    from docfleet.packs.sdk.money import MINOR_UNITS  # lazy: start-up

    return MINOR_UNITS.get(str(currency or ""), 2)


def _decimal(value: Any) -> Decimal | None:
    try:
        return abs(Decimal(str(value)))
    except (InvalidOperation, ValueError):
        return None


def document_facts(spec: PackSpec, doc: Mapping[str, Any],
                   fields: Sequence[Mapping[str, Any]], labels: Sequence[Mapping[str, Any]],
                   links: Sequence[Mapping[str, Any]], lines: Sequence[Mapping[str, Any]],
                   words: Sequence[Mapping[str, Any]], pages: Sequence[Mapping[str, Any]]
                   ) -> DocumentFacts:
    """One document's facts from its golden rows (every sequence holds this document's
    rows only, as the tables of docs/schema.md name their columns)."""
    facts = DocumentFacts(int(doc["document"]), _language(doc.get("locale")))
    label_text = {lab["label_id"]: lab["text"] for lab in labels}
    linked: dict[str, list[str]] = defaultdict(list)
    for link in links:
        if link["label_id"] in label_text:
            linked[link["field"]].append(label_text[link["label_id"]])
    heights = {p["page"]: p["height"] for p in pages if p.get("height")}
    first: dict[str, Mapping[str, Any]] = {}
    for f in fields:  # a field's first printing; a header printing before a line's
        facts.elements.add(f"field:{f['field']}")
        held = first.get(f["field"])
        if f["occurrence"] == 0 and (held is None or (held.get("line") is not None
                                                     and f.get("line") is None)):
            first[f["field"]] = f
    for role, name in spec.targets.items():
        target = first.get(name)
        if target is None:
            continue
        facts.role_labels[role] = linked.get(name, [])
        facts.role_formats[role] = (amount_shape if role == "total" else shape)(
            normalise(target["text"]))
        height = heights.get(target.get("page")) or doc.get("page_height")
        if target.get("y0") is not None and height:
            facts.role_y[role] = (target["y0"] + target["y1"]) / 2 / float(height)
    for f in fields:
        if f.get("line") is None and f["occurrence"] == 0 and f["field"] not in \
                facts.field_formats:
            facts.field_labels[f["field"]] = linked.get(f["field"], [])
            facts.field_formats[f["field"]] = (amount_shape if f["field"] in spec.money
                                               else shape)(normalise(f["text"]))
    for lab in labels:
        kind = "header" if lab["kind"] == "header" else "label"
        for name in str(lab["name"]).split():
            facts.elements.add(f"{kind}:{name}")
    # what is printed: lines
    minor = _minor(doc.get("currency"))
    printed: list[Amount] = []
    dates: set[str] = set()
    keyword_lines: Counter[str] = Counter()
    for line in lines:
        seen = scan(line["text"], minor)
        printed += seen.amounts
        dates.update(seen.date_strings())
        facts.time = facts.time or bool(seen.times)
        facts.upper += sum(1 for ch in seen.text if ch.isupper())
        facts.cased += sum(1 for ch in seen.text if ch.isupper() or ch.islower())
        keyword_lines.update(families(seen.text))
    facts.keyword_lines = {role: keyword_lines[family]
                           for role, family in spec.families.items()}
    facts.amounts = len(printed)
    facts.marked_amounts = sum(1 for a in printed if a.marked)
    facts.dates = len(dates)
    total = first.get(spec.targets["total"])
    total_value = _decimal(total["value"]) if total else None
    if total_value is not None:
        facts.total_is_largest = all(a.value <= total_value for a in printed)
    if spec.subtotal and total_value is not None and spec.subtotal in first:
        facts.subtotal_equals_total = _decimal(first[spec.subtotal]["value"]) == total_value
    # free lines: no word of theirs belongs to a field or a label
    owned = {(w["page"], w["text_line"]) for w in words
             if w.get("field") is not None or w.get("label_id") is not None}
    for line in lines:
        if (line["page"], line["text_line"]) not in owned:
            key = free_line_key(line["text"])
            if key:
                facts.free_lines.add(key)
    return facts


def _grouped(table: pa.Table | None, columns: Iterable[str]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    if table is None or table.num_rows == 0:
        return out
    names = [c for c in dict.fromkeys(["document", *columns]) if c in table.column_names]
    for row in table.select(names).to_pylist():
        out[row["document"]].append(row)
    return out


#: the golden tables the report reads (besides the pack's document table), and columns
TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "fields": ("field", "line", "occurrence", "text", "value", "page", "y0", "y1"),
    "labels": ("label_id", "kind", "name", "text"),
    "links": ("label_id", "field"),
    "lines": ("page", "text_line", "text"),
    "words": ("page", "text_line", "field", "label_id"),
    "pages": ("page", "height"),
}


def unit_facts(spec: PackSpec, tables: Mapping[str, pa.Table]) -> list[DocumentFacts]:
    """The facts of every document of one unit's shards (``tables``: the pack's document
    table and :data:`TABLE_COLUMNS`' tables; a missing layout table counts as empty)."""
    docs = tables[spec.document_table].to_pylist()
    grouped = {name: _grouped(tables.get(name), cols) for name, cols in TABLE_COLUMNS.items()}
    return [document_facts(spec, doc, *(grouped[name].get(doc["document"], [])
                                        for name in TABLE_COLUMNS))
            for doc in docs]


# --------------------------------------------------------------------------- sums
def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {k: None for k in ("mean", "stdev", "p10", "p25", "p50", "p75", "p90")}
    values = sorted(values)
    cuts = statistics.quantiles(values, n=20, method="inclusive") if len(values) > 1 \
        else [values[0]] * 19
    return {"mean": statistics.fmean(values),
            "stdev": statistics.stdev(values) if len(values) > 1 else 0.0,
            "p10": cuts[1], "p25": cuts[4], "p50": cuts[9], "p75": cuts[14], "p90": cuts[17]}


class Diversity:
    """The sums of one pack's :class:`DocumentFacts`; :meth:`report` is the report."""

    def __init__(self, spec: PackSpec) -> None:
        self.spec = spec
        self.documents = 0
        self.languages: Counter[str] = Counter()
        self.role_labels: dict[str, dict[str, Counter[str]]] = defaultdict(
            lambda: defaultdict(Counter))
        self.role_labelled: Counter[str] = Counter()
        self.role_printed: Counter[str] = Counter()
        self.role_formats: dict[str, Counter[str]] = defaultdict(Counter)
        self.role_y: dict[str, list[float]] = defaultdict(list)
        self.keyword_lines: dict[str, list[int]] = defaultdict(list)
        self.field_labels: dict[str, dict[str, Counter[str]]] = defaultdict(
            lambda: defaultdict(Counter))
        self.field_formats: dict[str, Counter[str]] = defaultdict(Counter)
        self.field_documents: Counter[str] = Counter()
        self.amounts: list[int] = []
        self.currency_docs = self.currency_majority = self.currency_any = 0
        self.currency_all = 0
        self.total_printed = self.total_largest = 0
        self.dates: list[int] = []
        self.times = 0
        self.elements: Counter[str] = Counter()
        self.free_lines: dict[str, Counter[str]] = defaultdict(Counter)
        self.upper = self.cased = 0
        self.subtotal_docs = self.subtotal_equal = 0

    def add(self, facts: DocumentFacts) -> None:
        """Count one document."""
        lang = facts.language
        self.documents += 1
        self.languages[lang] += 1
        for role, texts in facts.role_labels.items():
            self.role_printed[role] += 1
            self.role_labelled[role] += bool(texts)
            self.role_labels[role][lang].update(texts)
        for role, fmt in facts.role_formats.items():
            self.role_formats[role][fmt] += 1
        for role, y in facts.role_y.items():
            self.role_y[role].append(y)
        for role, n in facts.keyword_lines.items():
            self.keyword_lines[role].append(n)
        for name, texts in facts.field_labels.items():
            self.field_documents[name] += 1
            self.field_labels[name][lang].update(texts)
        for name, fmt in facts.field_formats.items():
            self.field_formats[name][fmt] += 1
        self.amounts.append(facts.amounts)
        if facts.amounts:
            self.currency_docs += 1
            self.currency_majority += 2 * facts.marked_amounts > facts.amounts
            self.currency_any += facts.marked_amounts > 0
            self.currency_all += facts.marked_amounts == facts.amounts
        if facts.total_is_largest is not None:
            self.total_printed += 1
            self.total_largest += facts.total_is_largest
        self.dates.append(facts.dates)
        self.times += facts.time
        self.elements.update(facts.elements)
        self.free_lines[lang].update(facts.free_lines)
        self.upper += facts.upper
        self.cased += facts.cased
        if facts.subtotal_equals_total is not None:
            self.subtotal_docs += 1
            self.subtotal_equal += facts.subtotal_equals_total

    def _labels(self, per_language: Mapping[str, Counter[str]]) -> dict[str, Any]:
        out = {}
        for lang in sorted(self.languages):
            raw = per_language.get(lang, Counter())
            folded = Counter[str]()
            for text, n in raw.items():
                folded[fold(text)] += n
            out[lang] = {"raw": len(raw), "casefolded": len(folded),
                         "top": [t for t, _ in folded.most_common(5)]}
        return out

    def elements_report(self) -> list[dict[str, Any]]:
        """Every element printed on at least 5 % of its documents, commonest first, with
        its status (required, common, optional) and whether it is flagged."""
        rows: list[dict[str, Any]] = []
        for element, n in self.elements.items():
            status, reason = self.spec.status(element)
            rows.append({"element": element, "share": n / self.documents, "status": status,
                         "reason": reason})
        for lang, counter in self.free_lines.items():
            for key, n in counter.items():
                rows.append({"element": f"line:{key}", "language": lang,
                             "share": n / self.languages[lang], "status": "optional",
                             "reason": None})
        for row in rows:
            row["flag"] = row["status"] == "optional" and row["share"] > MAX_OPTIONAL_SHARE
        rows = [r for r in rows if r["share"] >= 0.05]
        return sorted(rows, key=lambda r: (-r["share"], r["element"]))

    def report(self) -> dict[str, Any]:
        """The report (JSON-ready; shares are 0-1, None where nothing was measured)."""
        n = self.documents
        targets = {}
        for role, name in self.spec.targets.items():
            lines = self.keyword_lines.get(role, [])
            targets[role] = {
                "field": name, "printed_share": _share(self.role_printed[role], n),
                "labels": self._labels(self.role_labels.get(role, {})),
                "labelled_share": _share(self.role_labelled[role], self.role_printed[role]),
                "formats": {"distinct": len(self.role_formats.get(role, {})),
                            "top": [f for f, _ in
                                    self.role_formats.get(role, Counter()).most_common(5)]},
                "position_y": _spread(self.role_y.get(role, [])),
                "keyword_family": self.spec.families[role],
                "keyword_lines": {"mean": statistics.fmean(lines) if lines else None,
                                  "share_ge_2": _share(sum(1 for v in lines if v >= 2),
                                                       len(lines))},
            }
        fields = {
            name: {"documents": self.field_documents[name],
                   "labels_casefolded": {lang: v["casefolded"] for lang, v in
                                         self._labels(self.field_labels[name]).items()},
                   "formats": len(self.field_formats[name])}
            for name in sorted(self.field_documents)}
        elements = self.elements_report()
        return {
            "pack": self.spec.pack, "documents": n, "languages": dict(sorted(
                self.languages.items())),
            "targets": targets, "fields": fields,
            "amounts": {"mean_per_document": statistics.fmean(self.amounts)
                        if self.amounts else None,
                        "total_is_largest_share": _share(self.total_largest,
                                                         self.total_printed)},
            "dates": {"mean_per_document": statistics.fmean(self.dates) if self.dates
                      else None,
                      "share_ge_2": _share(sum(1 for v in self.dates if v >= 2), n)},
            "time_share": _share(self.times, n),
            "currency": {"majority_share": _share(self.currency_majority, self.currency_docs),
                         "any_share": _share(self.currency_any, self.currency_docs),
                         "all_share": _share(self.currency_all, self.currency_docs)},
            "uppercase_share": _share(self.upper, self.cased),
            "subtotal_equals_total_share": _share(self.subtotal_equal, self.subtotal_docs),
            "elements": elements,
            "flagged": [e for e in elements if e["flag"]],
        }


# --------------------------------------------------------------------------- figures
@dataclass(frozen=True)
class Figure:
    """One figure of the report beside its target: ``passed`` None = no target. ``key``
    names the figure the same way on every pack (``labels.total``, ``largest``, …)."""

    key: str
    name: str
    value: float | None
    shown: str
    target: str
    passed: bool | None
    detail: str = ""


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f} %"


def _num(v: float | None, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def figures(report: Mapping[str, Any]) -> list[Figure]:
    """The report's figures with their targets and verdicts (None: information only)."""
    pack = report["pack"]
    out: list[Figure] = []
    for role, t in report["targets"].items():
        per = {lang: v["casefolded"] for lang, v in t["labels"].items()}
        low = min(per.values()) if per else 0
        detail = ", ".join(f"{lang} {v}" for lang, v in per.items())
        out.append(Figure(f"labels.{role}", f"{role} ({t['field']}): distinct labels per language, "
                          "case-folded (fewest)", low, str(low),
                          f">= {TARGET_LABELS_PER_LANGUAGE}",
                          low >= TARGET_LABELS_PER_LANGUAGE, detail))
    for role, t in report["targets"].items():
        out.append(Figure(f"labelled.{role}", f"{role}: documents whose {t['field']} has a "
                          "linked label",
                          t["labelled_share"], _pct(t["labelled_share"]), "", None))
        out.append(Figure(f"formats.{role}", f"{role}: distinct value formats",
                          t["formats"]["distinct"],
                          str(t["formats"]["distinct"]), "", None,
                          "  ".join(t["formats"]["top"][:3])))
    total = report["targets"]["total"]
    mean_lines = total["keyword_lines"]["mean"]
    family = total["keyword_family"]
    applies = pack in TOTAL_LINE_PACKS
    out.append(Figure("lines.total", f"\"{family}\"-like lines per document (mean)", mean_lines,
                      _num(mean_lines), f">= {TARGET_TOTAL_LINES:g}" if applies else "",
                      (mean_lines or 0) >= TARGET_TOTAL_LINES if applies else None))
    for role in ("date", "number"):
        t = report["targets"][role]
        out.append(Figure(f"lines.{role}",
                          f"\"{t['keyword_family']}\"-like lines per document (mean)",
                          t["keyword_lines"]["mean"], _num(t["keyword_lines"]["mean"]),
                          "", None))
    largest = report["amounts"]["total_is_largest_share"]
    out.append(Figure("largest", f"{total['field']} is the largest printed amount", largest,
                      _pct(largest), f"<= {_pct(TARGET_TOTAL_LARGEST)}",
                      None if largest is None else largest <= TARGET_TOTAL_LARGEST,
                      REAL_REFERENCE["total_largest"]))
    out.append(Figure("amounts", "printed amounts per document (mean)",
                      report["amounts"]["mean_per_document"],
                      _num(report["amounts"]["mean_per_document"], 1), "", None))
    y = total["position_y"]
    out.append(Figure("position", f"{total['field']} position (normalised y: mean, stdev)",
                      y["mean"],
                      f"{_num(y['mean'])} ± {_num(y['stdev'])}", "", None,
                      f"p10 {_num(y['p10'])}, p50 {_num(y['p50'])}, p90 {_num(y['p90'])}; "
                      + REAL_REFERENCE["position_mean"]))
    dates = report["dates"]["share_ge_2"]
    out.append(Figure("dates", "documents with >= 2 date-like strings", dates, _pct(dates),
                      f">= {_pct(TARGET_MULTI_DATE_SHARE)}",
                      None if dates is None else dates >= TARGET_MULTI_DATE_SHARE,
                      f"mean {_num(report['dates']['mean_per_document'])} per document"))
    time = report["time_share"]
    timed = pack in TIME_PACKS
    out.append(Figure("time", "documents printing a time", time, _pct(time),
                      f">= {_pct(TARGET_TIME_SHARE)}" if timed else "",
                      (time or 0) >= TARGET_TIME_SHARE if timed else None,
                      REAL_REFERENCE["time"] if timed else ""))
    cur = report["currency"]
    lo, hi = TARGET_CURRENCY_SHARE
    out.append(Figure("currency", "documents with a currency mark on most amounts",
                      cur["majority_share"], _pct(cur["majority_share"]),
                      f"{_pct(lo)} - {_pct(hi)}",
                      None if cur["majority_share"] is None
                      else lo <= cur["majority_share"] <= hi,
                      f"on every amount {_pct(cur['all_share'])}, on some "
                      f"{_pct(cur['any_share'])}"))
    flagged = report["flagged"]
    out.append(Figure("optional", "optional elements (neither required nor common) on > "
                      f"{_pct(MAX_OPTIONAL_SHARE)} of documents",
                      len(flagged), str(len(flagged)), "0", not flagged,
                      ", ".join(f"{e['element']} {_pct(e['share'])}" for e in flagged[:6])
                      + (" …" if len(flagged) > 6 else "")))
    out.append(Figure("uppercase", "upper-case share of letters", report["uppercase_share"],
                      _pct(report["uppercase_share"]), "", None))
    if report["subtotal_equals_total_share"] is not None:
        out.append(Figure("subtotal", "subtotal equals total (documents printing both)",
                          report["subtotal_equals_total_share"],
                          _pct(report["subtotal_equals_total_share"]), "", None,
                          REAL_REFERENCE["subtotal_equals_total"]))
    return out


def verdicts(report: Mapping[str, Any]) -> tuple[int, int]:
    """(targets met, targets) of ``report``."""
    judged = [f for f in figures(report) if f.passed is not None]
    return sum(1 for f in judged if f.passed), len(judged)


# --------------------------------------------------------------------------- runs
class NotMeasurable(ValueError):
    """A run the report cannot measure (a pack without a spec, no layout tables)."""

#: document packs the report's roles do not fit, with why (the card says it)
NOT_MEASURED: dict[str, str] = {
    "form": "forms print no amounts and no document total, so the report's roles (total, "
            "date, number) and money figures do not apply; the form pack draws its "
            "questions' wording per document from pools of variants "
            "(packs/form/vocabulary.py)",
}


def measure_run(reader: RunReader, limit: int | None = None) -> dict[str, Any]:
    """The report of ``reader``'s run over its first ``limit`` documents (all: None),
    reading one unit's shards at a time (verified by the reader). Raises
    :class:`NotMeasurable` for a pack without a :data:`SPECS` entry or a run without
    layout tables (the html format)."""
    pack = ((reader.root or {}).get("parameters") or {}).get("pack")
    if pack is None:
        raise NotMeasurable("the run's pack is unknown (it is recorded in the root "
                            "manifest, which a partial run lacks)")
    spec = SPECS.get(str(pack))
    if spec is None:
        raise NotMeasurable(NOT_MEASURED.get(str(pack), f"no diversity spec for pack {pack!r}"))
    total = Diversity(spec)
    for part in reader.parts():
        if limit is not None and total.documents >= limit:
            break
        if spec.document_table not in part.shards:
            raise NotMeasurable(f"the run has no {spec.document_table} table")
        tables = {spec.document_table: reader.shard(part, spec.document_table)}
        for name in TABLE_COLUMNS:
            if name in part.shards:
                tables[name] = reader.shard(part, name)
        if part.count and (tables.get("lines") is None or tables["lines"].num_rows == 0):
            raise NotMeasurable("the run has no printed layout (html format)")
        for facts in unit_facts(spec, tables):
            if limit is None or total.documents < limit:
                total.add(facts)
    return total.report()
