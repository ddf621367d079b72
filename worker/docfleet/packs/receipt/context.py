"""Receipt → render context: blocks of fixed-height rows (a rule between blocks), each row a
left and a right run of pieces: a golden :class:`Field`, a printed label
(``data-label``) or plain text. The page height is the sum of what is printed."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from docfleet.packs.receipt.blocks import blocks_v2
from docfleet.packs.receipt.layouts import RECEIPT_LAYOUTS, ReceiptLayout
from docfleet.packs.receipt.pieces import Row, f, head, lab, row, txt
from docfleet.packs.receipt.records import Receipt
from docfleet.packs.sdk.fields import money_field, text_field
from docfleet.packs.sdk.locales import JURISDICTIONS, Jurisdiction, canonical
from docfleet.packs.sdk.style import PALETTES, barcode_bars
from docfleet.packs.sdk.text import columns, fit, labels_for
from docfleet.render.html import Field
from docfleet.render.logo import logo_svg

LABELS: dict[str, dict[str, str]] = {
    "en": {"title": "RECEIPT", "receipt_number": "Receipt no.", "issue_date": "Date",
           "issue_time": "Time", "till": "Till", "cashier": "Cashier", "store_phone": "Tel.",
           "store_tax_id": "VAT no.", "item_count": "Items", "subtotal": "Subtotal",
           "discount_total": "You saved", "incl": "incl.", "total": "TOTAL",
           "cash": "Cash", "card": "Card", "contactless": "Contactless", "mobile": "Mobile pay",
           "change": "Change", "card_number": "Card", "auth_code": "Auth code",
           "thanks": "Thank you for your visit!"},
    "fr": {"title": "TICKET DE CAISSE", "receipt_number": "Ticket n°", "issue_date": "Date",
           "issue_time": "Heure", "till": "Caisse", "cashier": "Vendeur",
           "store_phone": "Tél.", "store_tax_id": "N° TVA", "item_count": "Articles",
           "subtotal": "Sous-total", "discount_total": "Remises", "incl": "dont",
           "total": "TOTAL", "cash": "Espèces", "card": "Carte bancaire",
           "contactless": "Sans contact", "mobile": "Paiement mobile", "change": "Rendu",
           "card_number": "Carte", "auth_code": "N° autor.",
           "thanks": "Merci de votre visite !"},
    "de": {"title": "KASSENBON", "receipt_number": "Bon-Nr.", "issue_date": "Datum",
           "issue_time": "Uhrzeit", "till": "Kasse", "cashier": "Bediener",
           "store_phone": "Tel.", "store_tax_id": "USt-IdNr.", "item_count": "Artikel",
           "subtotal": "Zwischensumme", "discount_total": "Rabatte", "incl": "enth.",
           "total": "SUMME", "cash": "Bar", "card": "Kartenzahlung",
           "contactless": "Kontaktlos", "mobile": "Mobil bezahlt", "change": "Rückgeld",
           "card_number": "Karte", "auth_code": "Autor.-Nr.",
           "thanks": "Vielen Dank für Ihren Einkauf!"},
    # Japanese till receipts: 領収書, tax "内" (included) per rate, the T-number as 登録番号
    "ja": {"title": "領収書", "receipt_number": "取引番号", "issue_date": "日付",
           "issue_time": "時刻", "till": "レジ", "cashier": "担当", "store_phone": "電話",
           "store_tax_id": "登録番号", "item_count": "点数", "subtotal": "小計",
           "discount_total": "値引合計", "incl": "内税", "total": "合計", "cash": "現金",
           "card": "クレジット", "contactless": "電子マネー", "mobile": "スマホ決済",
           "change": "お釣り", "card_number": "カード", "auth_code": "承認番号",
           "thanks": "ありがとうございました"},
    # a Saudi simplified tax invoice (فاتورة ضريبية مبسطة): Arabic, the total bilingual
    "ar": {"title": "فاتورة ضريبية مبسطة", "receipt_number": "رقم الفاتورة",
           "issue_date": "التاريخ", "issue_time": "الوقت", "till": "الصندوق",
           "cashier": "الكاشير", "store_phone": "هاتف", "store_tax_id": "الرقم الضريبي",
           "item_count": "عدد الأصناف", "subtotal": "المجموع", "discount_total": "الخصم",
           "incl": "شامل", "total": "الإجمالي Total", "cash": "نقدي", "card": "بطاقة",
           "contactless": "بدون تلامس", "mobile": "دفع بالجوال", "change": "الباقي",
           "card_number": "البطاقة", "auth_code": "رمز الموافقة",
           "thanks": "شكرا لزيارتكم"},
}

def _qty(jur: Jurisdiction, value: Decimal, places: int, name: str, line: int) -> Field:
    return Field(name, jur.number(value, places), canonical(value), line)


def item_rows(r: Receipt, jur: Jurisdiction, layout: ReceiptLayout
              ) -> tuple[list[Row], list[dict[str, Any]]]:
    """The item block's rows and the hierarchy (one entry per printed item/sub-item row,
    numbered 1..n in print order: the fields' ``line``)."""
    rows: list[Row] = []
    tree: list[dict[str, Any]] = []
    n = 0
    for it in r.items:
        n += 1
        tree.append({"row": n, "item": it.line, "kind": "item", "name": it.name,
                     "quantity": it.quantity, "unit_price": it.unit_price,
                     "amount": it.amount, "tax_rate": it.tax_rate})
        name = text_field("item_name", it.name, n)
        amount = money_field(jur, "item_amount", it.amount, n)
        qty = _qty(jur, it.quantity, it.quantity_places, "item_quantity", n)
        price = money_field(jur, "item_unit_price", it.unit_price, n)
        unit = [txt(it.unit)] if it.unit else []
        detail = [f(qty), *unit, txt("x"), f(price)]
        if layout.two_line_items:
            rows.append(row([f(name)]))
            rows.append(row([txt(" "), *detail], [f(amount)], cls="ind"))
        elif it.quantity == 1 and not it.unit:
            rows.append(row([f(qty), txt("x"), f(name)], [f(amount)]))
        else:
            rows.append(row([f(name)], [f(amount)]))
            rows.append(row(detail, cls="ind"))
        for m in it.modifiers:
            n += 1
            tree.append({"row": n, "item": it.line, "kind": "modifier", "name": m.name,
                         "quantity": m.quantity, "unit_price": m.unit_price,
                         "amount": m.amount, "tax_rate": None})
            rows.append(row([txt("+"), f(text_field("modifier_name", m.name, n))],
                            [f(money_field(jur, "modifier_amount", m.amount, n))], cls="ind"))
        if it.discount is not None:
            d = it.discount
            n += 1
            tree.append({"row": n, "item": it.line, "kind": "discount", "name": d.name,
                         "quantity": None, "unit_price": None, "amount": d.amount,
                         "tax_rate": None, "percent": d.percent})
            rows.append(row(
                [f(text_field("discount_name", d.name, n)), txt("-", glue=True),
                 f(Field("discount_percent", jur.percent(d.percent), canonical(d.percent), n))],
                [txt("-", glue=True), f(money_field(jur, "discount_amount", d.amount, n))],
                cls="ind"))
    return rows, tree


def blocks(r: Receipt) -> list[list[Row]]:
    """Every printed row of ``r``, in blocks (a rule between two blocks)."""
    jur = JURISDICTIONS[r.locale]
    layout = RECEIPT_LAYOUTS[r.archetype]
    L = labels_for(LABELS, jur.language)
    if r.content >= 2:
        return blocks_v2(r, jur, layout, L)
    s = r.store
    top = [row([f(text_field("store_name", s.name))], units=2, cls="center big")]
    top.append(row([f(text_field("store_address", "\n".join(s.address)), "ml")],
                    units=len(s.address), cls="center"))
    top.append(row([lab("store_phone", L["store_phone"]), f(text_field("store_phone", s.phone))],
                    cls="center"))
    if s.tax_id:
        tax_label = L["store_tax_id"] if jur.language != "en" or jur.tax_name == "VAT" \
            else "Tax ID"
        top.append(row([lab("store_tax_id", tax_label),
                         f(text_field("store_tax_id", s.tax_id))], cls="center"))
    info = [
        row([head("title", L["title"])], cls="center b"),
        row([lab("receipt_number", L["receipt_number"])],
            [f(text_field("receipt_number", r.receipt_number))]),
        row([lab("issue_date", L["issue_date"]),
             f(Field("issue_date", jur.date(r.issue_date), r.issue_date.isoformat()))],
            [lab("issue_time", L["issue_time"]), f(text_field("issue_time", r.issue_time))]),
        row([lab("till", L["till"]), f(text_field("till", r.till))],
            [lab("cashier", L["cashier"]), f(text_field("cashier", r.cashier))]),
    ]
    items, _ = item_rows(r, jur, layout)
    totals = [
        row([lab("item_count", L["item_count"])],
            [f(text_field("item_count", str(r.item_count)))]),
        row([lab("subtotal", L["subtotal"])], [f(money_field(jur, "subtotal", r.subtotal))]),
    ]
    if r.discount_total:
        totals.append(row([lab("discount_total", L["discount_total"])],
                          [txt("-", glue=True),
                           f(money_field(jur, "discount_total", r.discount_total))]))
    for k, t in enumerate(r.taxes, start=1):
        rate = Field("tax_rate", jur.percent(t.rate), canonical(t.rate), k)
        amount = money_field(jur, "tax_amount", t.amount, k)
        base = money_field(jur, "tax_base", t.base, k)
        # a row never wraps: drop the base, then "incl.", then shorten the tax's name
        room = layout.columns - columns(amount.text) - columns(rate.text) - 3
        show_base = layout.tax_base and columns(jur.tax_name) + columns(L["incl"]) \
            + columns(base.text) + 2 <= room
        show_incl = r.tax_inclusive and columns(jur.tax_name) + columns(L["incl"]) + 1 <= room
        left = [lab("tax_rate", fit(jur.tax_name, room)), f(rate)]
        if show_incl:
            left.append(lab("tax_amount", L["incl"]))
        if show_base:
            left.append(f(base))
        totals.append(row(left, [f(amount)]))
    totals.append(row([lab("total", L["total"])], [f(money_field(jur, "total", r.total))],
                      units=2, cls="grand"))
    method = Field("payment_method", L[r.payment_method], r.payment_method)
    pay = [row([f(method)], [f(money_field(jur, "tendered", r.tendered))])]
    if r.payment_method == "cash":
        pay.append(row([lab("change", L["change"])], [f(money_field(jur, "change", r.change))]))
    else:
        pay.append(row([lab("card_number", L["card_number"])],
                       [f(text_field("card_number", f"**** {r.card_last4}"))]))
        pay.append(row([lab("auth_code", L["auth_code"])],
                       [f(text_field("auth_code", r.auth_code or ""))]))
    foot = [row([txt(L["thanks"])], cls="center")]
    return [top, info, items, totals, pay, foot]


def page_height(r: Receipt, bs: list[list[Row]] | None = None) -> int:
    """The page height in CSS px (``bs``: ``r``'s blocks, if already built)."""
    layout = RECEIPT_LAYOUTS[r.archetype]
    bs = blocks(r) if bs is None else bs
    units = sum(row["units"] for b in bs for row in b)
    return (layout.pad_top + layout.logo + units * layout.line + (len(bs) - 1) * layout.rule
            + layout.barcode + layout.pad_bottom)


def build_context(r: Receipt) -> dict[str, Any]:
    layout = RECEIPT_LAYOUTS[r.archetype]
    style = random.Random(r.style_seed)
    primary, secondary = style.choice(PALETTES)
    bs = blocks(r)
    height = page_height(r, bs)
    return {
        "v2": r.content >= 2,
        "v3": r.content >= 3,
        "primary": primary,
        "lang": JURISDICTIONS[r.locale].language,
        "dir": JURISDICTIONS[r.locale].direction,
        "title": r.receipt_number,
        "page_w": layout.width,
        "page_h": height,
        "font": layout.font,
        "font_size": layout.font_size,
        "S": layout,
        "logo": logo_svg(style.getrandbits(32), "#111", "#777", size=layout.logo)
        if layout.logo else "",
        "accent": primary if layout.name in ("bistro", "boutique") else "#111",
        "secondary": secondary,
        "blocks": bs,
        "bars": barcode_bars(r.receipt_number, layout.width - 2 * layout.pad_x),
        "pages": [{"number": 1, "count": 1, "last": True}],
    }
