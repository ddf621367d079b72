"""Invoice → render context: every printed golden value becomes a :class:`Field` with its
exact printed text (formatted by the locale) and canonical value; the lines are split
over pages; fonts, colours and the logo come from the invoice's style seed."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Any

from docfleet.packs.invoice.archetypes import ARCHETYPE_SPECS
from docfleet.packs.invoice.labels import LABELS
from docfleet.packs.invoice.records import Invoice, LineItem
from docfleet.packs.invoice.vocabulary import VARIANTS
from docfleet.packs.sdk.fields import money_field, party_fields, unit_price_text
from docfleet.packs.sdk.locales import JURISDICTIONS, Jurisdiction, canonical
from docfleet.packs.sdk.pages import Archetype, Page, paginate
from docfleet.packs.sdk.style import PALETTES
from docfleet.packs.sdk.variation import date_style, money_style, vary_words
from docfleet.render.html import Field
from docfleet.render.logo import logo_svg


@dataclass(frozen=True)
class InvoicePage(Page):
    """A page of an invoice: its lines may carry a discount column."""

    @property
    def discount(self) -> bool:
        """Whether this page prints a discount column: one of its lines has a discount (a
        column header is a label, and a label is printed only with a value it links)."""
        return any(line["discount"] for line in self.lines)


def _line(jur: Jurisdiction, item: LineItem) -> dict[str, Field | None]:
    n = item.line
    qty = jur.number(item.quantity, item.quantity_places)
    price_text = unit_price_text(jur, item.unit_price, item.price_places)
    discount = None
    if item.discount_percent:
        discount = Field("discount_percent", jur.percent(item.discount_percent),
                         canonical(item.discount_percent), n)
    return {
        "number": Field("line_number", str(n), str(n), n),
        "sku": Field("sku", item.sku, item.sku, n),
        "description": Field("description", item.description, item.description, n),
        "quantity": Field("quantity", qty, format(item.quantity, "f"), n),
        "unit": Field("unit", item.unit, item.unit, n),
        "unit_price": Field("unit_price", price_text, format(item.unit_price, "f"), n),
        "discount": discount,
        "amount": money_field(jur, "net_amount", item.net_amount, n),
        "tax_rate": Field("line_tax_rate", jur.percent(item.tax_rate), canonical(item.tax_rate), n),
    }


def page_size(invoice: Invoice) -> tuple[int, int]:
    """The page size in CSS px: the archetype's width if fixed, else the locale's paper."""
    jur = JURISDICTIONS[invoice.locale]
    spec = ARCHETYPE_SPECS[invoice.archetype]
    return spec.page_width or jur.page[0], jur.page[1]


def tax_total_row(invoice: Invoice) -> bool:
    """Content 2: whether the totals print a row for the tax in all (most do)."""
    return invoice.content >= 2 and random.Random(invoice.style_seed ^ 0x7A7).random() < 0.85


def extra_rows(invoice: Invoice) -> int:
    """Rows content 2 adds to the totals block: the tax total, the account summary."""
    return int(tax_total_row(invoice)) + (3 if invoice.previous_balance is not None else 0) \
        + (2 if invoice.instalments is not None else 0)


def line_pages(invoice: Invoice, spec: Archetype, height: int) -> list[range]:
    reserve = spec.totals_rows(len(invoice.taxes) + (1 if invoice.discount_total else 0)
                               + extra_rows(invoice))
    return paginate(len(invoice.lines), spec.capacity(height, True),
                    spec.capacity(height, False), reserve)


def build_context(invoice: Invoice) -> dict[str, Any]:
    """The template context of ``invoice`` (see the templates for its use)."""
    jur = JURISDICTIONS[invoice.locale]
    words = LABELS[jur.language]
    if invoice.content >= 2:  # a drawn convention, from a stream of its own
        vary = random.Random(invoice.style_seed ^ 0x1D0C)
        words = vary_words(words, VARIANTS.get(jur.language, {}), vary)
        jur, _ = money_style(date_style(jur, vary), vary)
    spec = ARCHETYPE_SPECS[invoice.archetype]
    style = random.Random(invoice.style_seed)
    primary, secondary = style.choice(PALETTES)
    font = style.choice(jur.fonts or spec.fonts)
    long_dates = style.random() < 0.4
    width, height = page_size(invoice)
    lines = [_line(jur, item) for item in invoice.lines]
    ranges = line_pages(invoice, spec, height)
    pages = [InvoicePage(i + 1, len(ranges), [lines[k] for k in r], i == len(ranges) - 1)
             for i, r in enumerate(ranges)]
    labels = words
    taxes = [
        {
            "label": f"{jur.tax_name}",
            "rate": Field("tax_rate", jur.percent(t.rate), canonical(t.rate), k),
            "base": money_field(jur, "tax_base", t.base, k),
            "amount": money_field(jur, "tax_amount", t.amount, k),
        }
        for k, t in enumerate(invoice.taxes, start=1)
    ]

    def date(day: dt.date) -> str:
        return jur.date(day, long=long_dates)

    labels_fx = None
    if invoice.fx_rate is not None and invoice.fx_currency and invoice.fx_total is not None:
        rate = jur.number(invoice.fx_rate, -int(invoice.fx_rate.as_tuple().exponent))
        fx_total = f"{invoice.fx_currency}\u00a0{jur.number(invoice.fx_total, 2)}"
        labels_fx = {
            "rate": Field("fx_rate", f"1 {invoice.currency} = {rate} {invoice.fx_currency}",
                          format(invoice.fx_rate, "f")),
            "total": Field("fx_total", fx_total, format(invoice.fx_total, "f")),
            "currency": invoice.fx_currency,
        }

    def text_field(name: str, text: str | None) -> Field | None:
        return Field(name, text, text) if text else None

    return {
        "lang": jur.language,
        "locale": jur.locale,
        "dir": jur.direction,
        "line_height": jur.line_height,
        "document_type": invoice.document_type,
        "original_invoice": text_field("original_invoice", invoice.original_invoice),
        "reason": text_field("reason", invoice.reason),
        "fx": labels_fx,
        "seller_registration": text_field("seller_registration", invoice.seller_registration),
        "tagline": text_field("tagline", invoice.tagline),
        "note": text_field("note", invoice.note),
        "payment_terms": text_field("payment_terms", invoice.terms),
        "title": invoice.invoice_number,
        "page_w": width,
        "page_h": height,
        "font": font,
        "font_size": style.choice((12, 12.5, 13)),
        "primary": primary,
        "secondary": secondary,
        "logo": logo_svg(style.getrandbits(32), primary, secondary),
        "L": labels,
        "tax_name": jur.tax_name,
        "terms": invoice.terms or labels["terms"].format(days=invoice.payment_days),
        "seller": party_fields("seller", invoice.seller),
        "buyer": party_fields("buyer", invoice.buyer),
        "invoice_number": Field("invoice_number", invoice.invoice_number,
                                invoice.invoice_number),
        "issue_date": Field("issue_date", date(invoice.issue_date),
                            invoice.issue_date.isoformat()),
        "due_date": Field("due_date", date(invoice.due_date), invoice.due_date.isoformat()),
        "po_number": Field("po_number", invoice.po_number, invoice.po_number)
        if invoice.po_number else None,
        "pages": pages,
        "content": invoice.content,
        "show_line_tax": len(invoice.taxes) > 1,
        "subtotal": money_field(jur, "subtotal", invoice.subtotal),
        "discount_total": money_field(jur, "discount_total", invoice.discount_total)
        if invoice.discount_total else None,
        "taxes": taxes,
        "tax_total": money_field(jur, "tax_total", invoice.tax_total),
        "tax_total_row": tax_total_row(invoice),
        # content 2: most invoices also print what is due beside their number
        "head_due": invoice.content >= 2 and invoice.document_type != "credit_note"
        and random.Random(invoice.style_seed ^ 0xD0E).random() < 0.7,
        "account": {
            "previous": money_field(jur, "previous_balance", invoice.previous_balance),
            "payments": money_field(jur, "payments_received", invoice.payments_received),
            "balance": money_field(jur, "account_balance", invoice.account_balance),
        } if invoice.previous_balance is not None and invoice.payments_received is not None
        and invoice.account_balance is not None else None,
        "contract": {
            "instalment": Field("instalment", f"{invoice.instalment}/{invoice.instalments}",
                                f"{invoice.instalment}/{invoice.instalments}"),
            "value": money_field(jur, "contract_value", invoice.contract_value),
        } if invoice.contract_value is not None else None,
        "total": money_field(jur, "total", invoice.total),
    }
