"""Bank statement → render context, paginated with the SDK's paginator: page 1
opens with the opening balance, each later page with the balance brought forward, each
page but the last ends with the balance carried forward, the last with the summary."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from docfleet.packs.bank_statement.records import BankStatement, Transaction
from docfleet.packs.bank_statement.vocabulary import VARIANTS, VARIANTS_V4
from docfleet.packs.sdk.fields import money_field, text_field
from docfleet.packs.sdk.locales import JURISDICTIONS, Jurisdiction
from docfleet.packs.sdk.pages import Archetype, paginate
from docfleet.packs.sdk.style import FORM, MONO, PALETTES, SANS, SERIF
from docfleet.packs.sdk.text import labels_for
from docfleet.packs.sdk.variation import date_style, money_style, pick, vary_words
from docfleet.render.html import Field
from docfleet.render.logo import logo_svg

#: ``next_top`` includes the brought-forward row, ``bottom`` the carried-forward row
BS_ARCHETYPES: dict[str, Archetype] = {
    "retail": Archetype("retail", "retail.html.j2", SANS, row_height=28,
                        first_top=470, next_top=200, bottom=150, totals_base=150, tax_row=0),
    "ledger": Archetype("ledger", "ledger.html.j2", FORM + MONO[:1],
                        row_height=22, first_top=400, next_top=180, bottom=130,
                        totals_base=150, tax_row=0),
    "private": Archetype("private", "private.html.j2", SERIF, row_height=30,
                         first_top=500, next_top=200, bottom=160, totals_base=90,
                         tax_row=0),
}

LABELS: dict[str, dict[str, str]] = {
    "en": {"title": "Account statement", "statement_number": "Statement no.",
           "issue_date": "Date of issue", "period": "Period", "to": "to",
           "holder": "Account holder", "iban": "IBAN", "bic": "BIC",
           "account_number": "Account no.", "routing_number": "Routing no.",
           "opening_balance": "Opening balance", "closing_balance": "Closing balance",
           "total_credits": "Total paid in", "total_debits": "Total paid out",
           "booking_date": "Date", "value_date": "Value", "description": "Description",
           "reference": "Reference", "debit": "Paid out", "credit": "Paid in",
           "amount": "Amount", "balance": "Balance",
           "brought": "Balance brought forward", "carried": "Balance carried forward",
           "page": "Page", "of": "of", "summary": "Summary",
           "note": "Please check this statement and tell us of any discrepancy within 30 days."},
    "fr": {"title": "Relevé de compte", "statement_number": "Relevé n°",
           "issue_date": "Date d'édition", "period": "Période du", "to": "au",
           "holder": "Titulaire", "iban": "IBAN", "bic": "BIC",
           "account_number": "N° de compte", "routing_number": "Code guichet",
           "opening_balance": "Solde initial", "closing_balance": "Solde final",
           "total_credits": "Total crédits", "total_debits": "Total débits",
           "booking_date": "Date", "value_date": "Valeur", "description": "Libellé",
           "reference": "Référence", "debit": "Débit", "credit": "Crédit",
           "amount": "Montant", "balance": "Solde",
           "brought": "Solde reporté", "carried": "Solde à reporter", "page": "Page",
           "of": "sur", "summary": "Synthèse",
           "note": "Merci de vérifier ce relevé et de signaler toute anomalie sous 30 jours."},
    "de": {"title": "Kontoauszug", "statement_number": "Auszug Nr.",
           "issue_date": "Erstellt am", "period": "Zeitraum", "to": "bis",
           "holder": "Kontoinhaber", "iban": "IBAN", "bic": "BIC",
           "account_number": "Kontonummer", "routing_number": "BLZ",
           "opening_balance": "Alter Kontostand", "closing_balance": "Neuer Kontostand",
           "total_credits": "Summe Haben", "total_debits": "Summe Soll",
           "booking_date": "Buchung", "value_date": "Valuta",
           "description": "Verwendungszweck", "reference": "Referenz", "debit": "Soll",
           "credit": "Haben",
           "amount": "Betrag", "balance": "Saldo", "brought": "Übertrag",
           "carried": "Übertrag auf Folgeseite", "page": "Seite", "of": "von",
           "summary": "Übersicht",
           "note": "Bitte prüfen Sie diesen Auszug; Einwendungen innerhalb von 6 Wochen."},
    "ja": {"title": "入出金明細書", "statement_number": "明細番号",
           "issue_date": "発行日", "period": "対象期間", "to": "〜",
           "holder": "口座名義", "iban": "IBAN", "bic": "BIC",
           "account_number": "口座番号", "routing_number": "金融機関・支店コード",
           "opening_balance": "前回残高", "closing_balance": "今回残高",
           "total_credits": "お預り金額合計", "total_debits": "お支払金額合計",
           "booking_date": "取引日", "value_date": "起算日", "description": "摘要",
           "reference": "照会番号", "debit": "お支払金額", "credit": "お預り金額",
           "amount": "金額", "balance": "残高",
           "brought": "前頁より繰越", "carried": "次頁へ繰越", "page": "ページ",
           "of": "/", "summary": "合計",
           "note": "お取引内容をご確認のうえ、相違がございましたら30日以内にお申し出ください。"},
    # Saudi statements: Arabic with the English words beside the main headings
    "ar": {"title": "كشف حساب Account Statement", "statement_number": "رقم الكشف",
           "issue_date": "تاريخ الإصدار", "period": "الفترة من", "to": "إلى",
           "holder": "صاحب الحساب Account holder", "iban": "الآيبان IBAN", "bic": "BIC",
           "account_number": "رقم الحساب", "routing_number": "رمز البنك",
           "opening_balance": "الرصيد الافتتاحي Opening balance",
           "closing_balance": "الرصيد الختامي Closing balance",
           "total_credits": "إجمالي الإيداعات", "total_debits": "إجمالي السحوبات",
           "booking_date": "التاريخ", "value_date": "تاريخ القيمة",
           "description": "البيان Description", "reference": "المرجع", "debit": "مدين",
           "credit": "دائن", "amount": "المبلغ", "balance": "الرصيد",
           "brought": "رصيد منقول", "carried": "رصيد مرحل", "page": "صفحة Page",
           "of": "/", "summary": "ملخص",
           "note": "يرجى مراجعة هذا الكشف وإبلاغنا بأي اختلاف خلال 30 يوم."},
}


#: the printed name of a domestic routing number where English words print it
ROUTING_LABELS = {"AU": "BSB", "CA": "Transit / Inst. no.", "JP": "Bank / branch code"}


@dataclass(frozen=True)
class StatementPage:
    number: int
    count: int
    lines: list[dict[str, Field | None]]
    last: bool
    brought: Field | None  # pages 2+: balance brought forward
    carried: Field | None  # all but the last page


def page_size(s: BankStatement) -> tuple[int, int]:
    page = JURISDICTIONS[s.locale].page
    return page[0], page[1]


def line_pages(s: BankStatement) -> list[range]:
    spec = BS_ARCHETYPES[s.archetype]
    height = page_size(s)[1]
    return paginate(len(s.transactions), spec.capacity(height, True),
                    spec.capacity(height, False), spec.totals_rows(0))


def _tx(jur: Jurisdiction, t: Transaction) -> dict[str, Field | None]:
    n = t.line
    magnitude = abs(t.amount)
    return {
        "booking_date": Field("booking_date", jur.date(t.booking_date),
                              t.booking_date.isoformat(), n),
        "value_date": Field("value_date", jur.date(t.value_date), t.value_date.isoformat(), n)
        if t.value_date else None,
        "description": text_field("description", t.description, n),
        "reference": text_field("reference", t.reference, n) if t.reference else None,
        "debit": money_field(jur, "debit", magnitude, n) if t.amount < 0 else None,
        "credit": money_field(jur, "credit", magnitude, n) if t.amount > 0 else None,
        "amount": money_field(jur, "amount", t.amount, n),
        "balance": money_field(jur, "balance", t.balance, n),
    }


def build_context(s: BankStatement) -> dict[str, Any]:
    jur = JURISDICTIONS[s.locale]
    spec = BS_ARCHETYPES[s.archetype]
    style = random.Random(s.style_seed)
    primary, secondary = style.choice(PALETTES)
    width, height = page_size(s)
    L = labels_for(LABELS, jur.language)
    if s.content >= 2:  # a drawn convention, from a stream of its own
        vary = random.Random(s.style_seed ^ 0x1D0C)
        L = vary_words(L, VARIANTS.get(jur.language, {}), vary)
        if s.content >= 4:  # more notes, from a stream of their own
            L["note"] = pick(random.Random(s.style_seed ^ 0x0E4A),
                             VARIANTS_V4.get(jur.language, VARIANTS_V4["en"])["note"], 0.4)
        jur, _ = money_style(date_style(jur, vary), vary)
    country = s.locale.rsplit("-", 1)[-1]
    if s.iban is None and country in ROUTING_LABELS \
            and L["routing_number"] == LABELS["en"]["routing_number"]:
        L["routing_number"] = ROUTING_LABELS[country]
    txs = [_tx(jur, t) for t in s.transactions]
    ranges = line_pages(s)
    pages = []
    for i, r in enumerate(ranges):
        number, last = i + 1, i == len(ranges) - 1
        before = s.transactions[r.start - 1].balance if r.start else s.opening_balance
        after = s.transactions[r.stop - 1].balance if len(r) else before
        pages.append(StatementPage(
            number, len(ranges), [txs[k] for k in r], last,
            money_field(jur, "balance_brought_forward", before, number) if number > 1 else None,
            None if last else money_field(jur, "balance_carried_forward", after, number)))
    address = "\n".join(s.holder_address)
    return {
        "lang": jur.language, "dir": jur.direction, "title": s.statement_number,
        "page_w": width, "page_h": height,
        "font": style.choice(spec.fonts), "font_size": style.choice((11, 11.5, 12)),
        "primary": primary, "secondary": secondary, "row_h": spec.row_height,
        "logo": logo_svg(style.getrandbits(32), primary, secondary, size=48),
        "L": L,
        "bank_name": text_field("bank_name", s.bank_name),
        "bank_address": text_field("bank_address", "\n".join(s.bank_address)),
        "bic": text_field("bic", s.bic),
        "holder_name": text_field("holder_name", s.holder_name),
        "holder_address": text_field("holder_address", address),
        "iban": text_field("iban", s.iban) if s.iban else None,
        "routing_number": text_field("routing_number", s.routing_number)
        if s.routing_number else None,
        "account_number": text_field("account_number", s.account_number),
        "statement_number": text_field("statement_number", s.statement_number),
        "issue_date": Field("issue_date", jur.date(s.issue_date), s.issue_date.isoformat()),
        "period_start": Field("period_start", jur.date(s.period_start),
                              s.period_start.isoformat()),
        "period_end": Field("period_end", jur.date(s.period_end), s.period_end.isoformat()),
        "opening_balance": money_field(jur, "opening_balance", s.opening_balance),
        "closing_balance": money_field(jur, "closing_balance", s.closing_balance),
        "total_credits": money_field(jur, "total_credits", s.total_credits),
        "total_debits": money_field(jur, "total_debits", s.total_debits),
        "pages": pages,
        #: content 4: the transactions table's cells are golden rows (``cells``, issue 28)
        "cells_table": "transactions" if s.content >= 4 else None,
        # content 3: a bank that prints no value dates drops the column
        "value_dates": any(t.value_date for t in s.transactions),
        # content 4: a bank that prints no references drops the ledger's column
        "ref_column": s.content < 4 or any(t.reference for t in s.transactions),
    }
