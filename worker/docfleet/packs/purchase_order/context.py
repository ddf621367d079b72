"""Purchase order → render context (printed golden values as :class:`Field`), paginated
with the SDK's paginator; archetype geometry in :data:`PO_ARCHETYPES`."""

from __future__ import annotations

import random
from typing import Any

from docfleet.packs.purchase_order.extras import WORDS
from docfleet.packs.purchase_order.records import OrderLine, PurchaseOrder
from docfleet.packs.purchase_order.vocabulary import VARIANTS, VARIANTS_V3
from docfleet.packs.sdk.fields import money_field, party_fields, text_field, unit_price_text
from docfleet.packs.sdk.locales import JURISDICTIONS, canonical
from docfleet.packs.sdk.pages import Archetype, Page, paginate
from docfleet.packs.sdk.style import FORM, PALETTES, SANS, SERIF
from docfleet.packs.sdk.text import labels_for
from docfleet.packs.sdk.variation import date_style, money_style, pick, vary_words
from docfleet.render.html import Field
from docfleet.render.logo import logo_svg

PO_ARCHETYPES: dict[str, Archetype] = {
    "standard": Archetype("standard", "standard.html.j2", SANS + SERIF[:1],
                          row_height=24, first_top=460, next_top=160, bottom=120,
                          totals_base=210, tax_row=22),
    "grid": Archetype("grid", "grid.html.j2", FORM, row_height=24,
                      first_top=480, next_top=160, bottom=120, totals_base=210, tax_row=22),
    "banner": Archetype("banner", "banner.html.j2", SERIF + SANS[:1],
                        row_height=26, first_top=470, next_top=170, bottom=110,
                        totals_base=210, tax_row=22),
}

LABELS: dict[str, dict[str, str]] = {
    "en": {"title": "PURCHASE ORDER", "po_number": "PO number", "issue_date": "Order date",
           "supplier": "Supplier", "buyer": "Buyer", "ship_to": "Ship to",
           "supplier_number": "Vendor no.", "contact": "Buyer contact",
           "delivery_terms": "Delivery terms", "delivery_date": "Requested delivery",
           "payment_terms": "Payment terms", "payment": "Net {days} days",
           "line_number": "#", "sku": "Item no.", "description": "Description",
           "requested_date": "Req. date", "quantity": "Qty", "unit": "Unit",
           "unit_price": "Agreed price", "amount": "Amount", "subtotal": "Subtotal",
           "total": "Order total", "tax_id": "Tax ID", "phone": "Phone", "email": "Email",
           "page": "Page", "of": "of", "continued": "continued",
           "signature": "Authorised signature",
           "note": "Please quote the PO number on every invoice and delivery note."},
    "fr": {"title": "BON DE COMMANDE", "po_number": "N° de commande",
           "issue_date": "Date de commande", "supplier": "Fournisseur", "buyer": "Acheteur",
           "ship_to": "Livrer à", "supplier_number": "N° fournisseur", "contact": "Contact",
           "delivery_terms": "Conditions de livraison",
           "delivery_date": "Livraison souhaitée", "payment_terms": "Paiement",
           "payment": "{days} jours net", "line_number": "N°", "sku": "Réf.",
           "description": "Désignation", "requested_date": "Date souh.",
           "quantity": "Qté", "unit": "Unité", "unit_price": "Prix convenu HT",
           "amount": "Montant HT", "subtotal": "Total HT", "total": "Total TTC",
           "tax_id": "N° TVA intracom.", "phone": "Tél.", "email": "E-mail",
           "page": "Page", "of": "sur", "continued": "suite",
           "signature": "Signature autorisée",
           "note": "Merci de rappeler le numéro de commande sur factures et bons de livraison."},
    "de": {"title": "BESTELLUNG", "po_number": "Bestellnr.", "issue_date": "Bestelldatum",
           "supplier": "Lieferant", "buyer": "Besteller", "ship_to": "Lieferanschrift",
           "supplier_number": "Lieferantennr.", "contact": "Ansprechpartner",
           "delivery_terms": "Lieferbedingungen", "delivery_date": "Liefertermin",
           "payment_terms": "Zahlung", "payment": "{days} Tage netto",
           "line_number": "Pos.", "sku": "Art.-Nr.", "description": "Bezeichnung",
           "requested_date": "Termin", "quantity": "Menge", "unit": "Einheit",
           "unit_price": "Vereinb. Preis", "amount": "Betrag", "subtotal": "Summe netto",
           "total": "Gesamtbetrag", "tax_id": "USt-IdNr.", "phone": "Tel.",
           "email": "E-Mail", "page": "Seite", "of": "von", "continued": "Fortsetzung",
           "signature": "Unterschrift",
           "note": "Bitte die Bestellnummer auf allen Rechnungen und Lieferscheinen angeben."},
    "ja": {"title": "注文書", "po_number": "注文番号", "issue_date": "注文日",
           "supplier": "発注先", "buyer": "発注者", "ship_to": "納品先",
           "supplier_number": "取引先コード", "contact": "担当者",
           "delivery_terms": "納入条件", "delivery_date": "希望納期",
           "payment_terms": "支払条件", "payment": "請求後{days}日以内",
           "line_number": "No.", "sku": "品番", "description": "品名",
           "requested_date": "納期", "quantity": "数量", "unit": "単位",
           "unit_price": "単価", "amount": "金額", "subtotal": "小計（税抜）",  # noqa: RUF001
           "total": "合計金額（税込）", "tax_id": "登録番号", "phone": "電話",  # noqa: RUF001
           "email": "メール", "page": "ページ", "of": "/", "continued": "続き",
           "signature": "承認印",
           "note": "請求書・納品書には必ず注文番号をご記入ください。"},
    # Saudi business documents print their headings in Arabic and English
    "ar": {"title": "أمر شراء Purchase Order", "po_number": "رقم أمر الشراء PO Number",
           "issue_date": "تاريخ الطلب Date", "supplier": "المورد Supplier",
           "buyer": "المشتري Buyer", "ship_to": "عنوان التسليم Ship to",
           "supplier_number": "رقم المورد", "contact": "المسؤول",
           "delivery_terms": "شروط التسليم", "delivery_date": "تاريخ التسليم",
           "payment_terms": "شروط الدفع", "payment": "صافي {days} يوم",
           "line_number": "#", "sku": "الرمز", "description": "الوصف Description",
           "requested_date": "التاريخ", "quantity": "الكمية", "unit": "الوحدة",
           "unit_price": "السعر المتفق", "amount": "المبلغ", "subtotal": "المجموع Subtotal",
           "total": "إجمالي الطلب Total", "tax_id": "الرقم الضريبي", "phone": "هاتف",
           "email": "بريد", "page": "صفحة Page", "of": "/", "continued": "تابع",
           "signature": "توقيع معتمد",
           "note": "يرجى ذكر رقم أمر الشراء في جميع الفواتير ومذكرات التسليم."},
}


def page_size(po: PurchaseOrder) -> tuple[int, int]:
    page = JURISDICTIONS[po.locale].page
    return page[0], page[1]


def line_pages(po: PurchaseOrder) -> list[range]:
    spec = PO_ARCHETYPES[po.archetype]
    height = page_size(po)[1]
    return paginate(len(po.lines), spec.capacity(height, True), spec.capacity(height, False),
                    spec.totals_rows(len(po.taxes) + _extra_rows(po)))


def _extra_rows(po: PurchaseOrder) -> int:
    """Content 3: the look-alike rows printed under the total."""
    if po.extras is None:
        return 0
    return sum(v is not None for v in po.extras.amounts().values())


def _line(po: PurchaseOrder, item: OrderLine) -> dict[str, Field | None]:
    jur = JURISDICTIONS[po.locale]
    n = item.line
    price_text = unit_price_text(jur, item.unit_price, item.price_places)
    return {
        "number": text_field("line_number", str(n), n),
        "sku": text_field("sku", item.sku, n),
        "description": text_field("description", item.description, n),
        "requested_date": Field("requested_date", jur.date(item.requested_date),
                                item.requested_date.isoformat(), n),
        "quantity": Field("quantity", jur.number(item.quantity, item.quantity_places),
                          format(item.quantity, "f"), n),
        "unit": text_field("unit", item.unit, n),
        "unit_price": Field("unit_price", price_text, format(item.unit_price, "f"), n),
        "amount": money_field(jur, "amount", item.amount, n),
        "tax_rate": Field("line_tax_rate", jur.percent(item.tax_rate),
                          canonical(item.tax_rate), n),
    }


def build_context(po: PurchaseOrder) -> dict[str, Any]:
    jur = JURISDICTIONS[po.locale]
    spec = PO_ARCHETYPES[po.archetype]
    style = random.Random(po.style_seed)
    primary, secondary = style.choice(PALETTES)
    font = style.choice(spec.fonts)
    long_dates = style.random() < 0.4
    width, height = page_size(po)
    L = labels_for(LABELS, jur.language)
    if po.content >= 2:  # a drawn convention, from a stream of its own
        vary = random.Random(po.style_seed ^ 0x1D0C)
        L = vary_words(L, VARIANTS.get(jur.language, {}), vary)
        jur, _ = money_style(date_style(jur, vary), vary, (5, 2, 3))
    lines = [_line(po, item) for item in po.lines]
    ranges = line_pages(po)
    pages = [Page(i + 1, len(ranges), [lines[k] for k in r], i == len(ranges) - 1)
             for i, r in enumerate(ranges)]
    ship_to = "\n".join(po.ship_to)
    context = {
        "lang": jur.language, "dir": jur.direction, "title": po.po_number, "page_w": width,
        "page_h": height,
        "font": font, "font_size": style.choice((11.5, 12, 12.5)), "primary": primary,
        "secondary": secondary, "logo": logo_svg(style.getrandbits(32), primary, secondary),
        "L": L, "tax_name": jur.tax_name,
        "buyer": party_fields("buyer", po.buyer),
        "supplier": party_fields("supplier", po.supplier),
        "po_number": text_field("po_number", po.po_number),
        "issue_date": Field("issue_date", jur.date(po.issue_date, long=long_dates),
                            po.issue_date.isoformat()),
        "supplier_number": text_field("supplier_number", po.supplier_number),
        "contact": text_field("contact", po.contact),
        "ship_to": text_field("ship_to", ship_to),
        "incoterm": text_field("incoterm", po.incoterm),
        "delivery_place": text_field("delivery_place", po.delivery_place),
        "delivery_date": Field("delivery_date", jur.date(po.delivery_date, long=long_dates),
                               po.delivery_date.isoformat()),
        "payment_terms": Field("payment_terms", L["payment"].format(days=po.payment_days),
                               str(po.payment_days)),
        "pages": pages,
        "content": po.content,
        #: content 3: the lines table's cells are golden rows (``cells``, issue 28)
        "cells_table": "order_lines" if po.content >= 3 else None,
        "show_line_tax": len(po.taxes) > 1,
        "subtotal": money_field(jur, "subtotal", po.subtotal),
        "taxes": [{"rate": Field("tax_rate", jur.percent(t.rate), canonical(t.rate), k),
                   "base": money_field(jur, "tax_base", t.base, k),
                   "amount": money_field(jur, "tax_amount", t.amount, k)}
                  for k, t in enumerate(po.taxes, start=1)],
        "total": money_field(jur, "total", po.total),
        "show_requested": True, "extras": [],
    }
    if po.extras is not None:
        _print_extras(po, jur, context, random.Random(po.style_seed ^ 0x0E3B))
    return context


def _print_extras(po: PurchaseOrder, jur: Any, context: dict[str, Any],
                  rng: random.Random) -> None:
    """Content 3: hide the optional parts the order does not print and add its look-alike
    amounts (each with its own drawn key, under the total)."""
    assert po.extras is not None
    shown = po.extras.shown
    if "incoterm" not in shown:
        context["incoterm"] = context["delivery_place"] = None
    if "supplier_number" not in shown:
        context["supplier_number"] = None
    for role in ("buyer", "supplier"):
        if f"{role}_tax_id" not in shown:
            context[role] = {**context[role], "tax_id": None}
    context["show_requested"] = "requested_date" in shown
    words = WORDS.get(jur.language, WORDS["en"])
    more = VARIANTS_V3.get(jur.language, {})
    L = vary_words(context["L"], {k: more[k] for k in ("po_number", "note", "page")
                                  if k in more}, rng)
    extras = []
    for name, amount in po.extras.amounts().items():
        if amount is not None:
            L[name] = pick(rng, words[name], 0.5)
            extras.append(money_field(jur, name, amount))
    context["L"], context["extras"] = L, extras
