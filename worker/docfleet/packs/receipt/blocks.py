"""The printed rows of a content-version-2 receipt: the record's facts laid out the way its
:class:`~.variation.ReceiptStyle` says — its words, money and date formats, its optional
lines, an item table or item lines, a tax summary, a card slip, a loyalty block, and the
blocks after the total in the style's order.

Every printed value is a golden field and every key is a ``data-label`` naming the field
it labels, so the truth stays exact. A row never wraps: a key is cut to what the row has
room for, and a row whose value still does not fit puts it on a row of its own.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from docfleet.packs.receipt.layouts import ITEM_TABLE_COLUMNS, ReceiptLayout
from docfleet.packs.receipt.pieces import Row, f, head, lab, row, txt, width
from docfleet.packs.receipt.records import Receipt
from docfleet.packs.receipt.rowkit import RowKit
from docfleet.packs.receipt.vocabulary import SCHEMES, SLIP
from docfleet.packs.sdk.fields import text_field
from docfleet.packs.sdk.locales import Jurisdiction, canonical
from docfleet.packs.sdk.text import columns, fit
from docfleet.render.html import Field


class SaleBlocks(RowKit):
    """What was sold, when and where: the shop's header, the receipt's number, date and
    time, the item lines or item table."""

    def top(self) -> list[Row]:
        r, s = self.r, self.s
        out = [row([f(text_field("store_name", r.store.name))], units=2, cls="center big")]
        out.append(row([f(text_field("store_address", "\n".join(r.store.address)), "ml")],
                       units=len(r.store.address), cls="center"))
        out += [r for line in s.header_lines for r in self.center(line)]
        if "phone" in s.show:
            out.append(row([lab("store_phone", self.key("store_phone")),
                            f(text_field("store_phone", r.store.phone))], cls="center"))
        if r.store.tax_id:
            word = self.words["store_tax_id"] if self.jur.language != "en" or \
                self.jur.tax_name == "VAT" else "Tax ID"
            out.append(row([lab("store_tax_id", self.key("store_tax_id", word)),
                            f(text_field("store_tax_id", r.store.tax_id))], cls="center"))
        return out

    def info(self) -> list[Row]:
        r, s = self.r, self.s
        out: list[Row] = []
        if s.title:
            out.append(row([head("title", fit(s.line(s.title), self.cols))],
                           cls="center b title"))
        out += self.kv("receipt_number", [f(text_field("receipt_number", r.receipt_number))],
                       word=None if "number_label" in s.show else "")
        date = f(self.date_field("issue_date", s.date_format, r.issue_date))
        clock = [f(self.time_field("issue_time", r.issue_time))] if "time" in s.show else []
        date_word = self.key("issue_date") if "date_label" in s.show else ""
        left = [lab("issue_date", date_word)] if date_word else []
        one_row = "datetime_row" in s.show or not clock
        if one_row and r.content >= 3 and clock and width([*left, date, *clock]) > self.cols:
            one_row = False  # content 3: a long date and its time do not share a row
        if one_row:
            out.append(row([*left, date, *clock]))
        else:
            out += self.kv("issue_date", [date], word=date_word)
            out += self.kv("issue_time", clock)
        till = [lab("till", self.key("till")), f(text_field("till", r.till))] \
            if "till" in s.show else []
        cashier = [lab("cashier", self.key("cashier")), f(text_field("cashier", r.cashier))] \
            if "cashier" in s.show else []
        if till or cashier:
            if width(till) + width(cashier) + 2 <= self.cols:
                out.append(row(till or cashier, cashier if till else []))
            else:
                out += [row(till), row(cashier)]
        return out

    def item_fields(self, it: Any, n: int, places3: bool) -> tuple[Field, Field, Field]:
        """(quantity, unit price, amount) of item ``it`` printed on row ``n``."""
        jur = self.jur
        qty = Field("item_quantity", jur.number(it.quantity, it.quantity_places),
                    canonical(it.quantity), n)
        pplaces = 3 if places3 and it.quantity_places == 0 else jur.places
        price = Field("item_unit_price", jur.number(it.unit_price, pplaces)
                      if self.s.currency != "symbol" else jur.money(it.unit_price),
                      format(it.unit_price, "f"), n)
        return qty, price, self.money("item_amount", it.amount, n)

    def items(self) -> list[Row]:
        """Item lines, or an item table (column headings, columns as wide as their widest
        text; the price column dropped where the row has no room for it)."""
        r, s, jur = self.r, self.s, self.jur
        codes = self.tax_codes() if "tax_codes" in s.show else {}
        places3 = "price_places3" in s.show and self.jur.places == 2
        printed: list[tuple[int, Field, Field, Field]] = []
        n = 0
        for it in r.items:
            n += 1
            printed.append((n, *self.item_fields(it, n, places3)))
            n += len(it.modifiers) + (it.discount is not None)
        heads = [self.column("item_quantity", "col_qty"),
                 self.column("item_unit_price", "col_price"),
                 self.column("item_amount", "col_amount")]
        widths = [max(columns(heads[c]["t"]), *(columns(p[1:][c].text) for p in printed))
                  for c in range(3)]
        code_w = 2 if codes else 0
        # the source fitted names to ITEM_TABLE_COLUMNS less than the row
        budget = ITEM_TABLE_COLUMNS
        cols = [0, 1, 2] if sum(widths) + code_w + 3 <= budget else [0, 2]
        table = "item_table" in s.show and sum(widths[c] + 1 for c in cols) + code_w <= budget
        out: list[Row] = []
        if table:
            out.append(row([{**heads[0], "w": widths[0]}, self.column("item_name", "col_name")],
                           [{**heads[c], "w": widths[c]} for c in cols[1:]]
                           + ([txt("", w=1)] if codes else []), cls="b"))
        for it, (n, qty, price, amount_field) in zip(r.items, printed, strict=True):
            name = f(text_field("item_name", it.name, n))
            code = [f(Field("tax_code", codes[it.tax_rate], codes[it.tax_rate], n))] \
                if codes else []
            if table:
                right = [f(price, w=widths[1])] if 1 in cols else []
                out.append(row([f(qty, w=widths[0]), name],
                               [*right, f(amount_field, w=widths[2]), *code]))
            else:
                amount = f(amount_field)
                unit = [txt(it.unit)] if it.unit else []
                if it.quantity == 1 and not it.unit:
                    out.append(row([f(qty), txt("x"), name], [amount, *code]))
                else:
                    out.append(row([name], [amount, *code]))
                    out.append(row([f(qty), *unit, txt("x"), f(price)], cls="ind"))
            for m in it.modifiers:
                n += 1
                out.append(row([txt("+"), f(text_field("modifier_name", m.name, n))],
                               [f(self.money("modifier_amount", m.amount, n))], cls="ind"))
            if it.discount is not None:
                d = it.discount
                n += 1
                out.append(row(
                    [f(text_field("discount_name", d.name, n)), txt("-", glue=True),
                     f(Field("discount_percent", jur.percent(d.percent), canonical(d.percent),
                             n))],
                    [txt("-", glue=True), f(self.money("discount_amount", d.amount, n))],
                    cls="ind"))
        return out


class SettlementBlocks(RowKit):
    """What it came to and how it was paid: totals and tax rows, the tender, the tax
    summary, the card slip, the loyalty block and the footer."""

    def tax_rows(self) -> list[Row]:
        """One row per rate: the tax's name and rate, the tax (included, or added)."""
        out: list[Row] = []
        incl = self.words["incl"] if self.r.tax_inclusive else ""
        for k, t in enumerate(self.r.taxes, start=1):
            rate = Field("tax_rate", self.jur.percent(t.rate), canonical(t.rate), k)
            amount = self.money("tax_amount", t.amount, k)
            extra = [f(rate)]
            if incl:
                extra.append(lab("tax_amount", self.s.line(incl)))
            out += self.kv("tax_rate", [f(amount)], word=self.jur.tax_name,
                           left_extra=extra)
        return out

    def totals(self) -> list[Row]:
        r, s = self.r, self.s
        out: list[Row] = []
        if "item_count" in s.show:
            out += self.kv("item_count", [f(text_field("item_count", str(r.item_count)))])
        if "subtotal" in s.show or not r.tax_inclusive:
            out += self.kv("subtotal", [f(self.money("subtotal", r.subtotal))])
        if r.discount_total:
            out += self.kv("discount_total",
                           [txt("-", glue=True),
                            f(self.money("discount_total", r.discount_total))])
        if not r.tax_inclusive or "tax_table" not in s.show:
            out += self.tax_rows()
        base = sum((t.base for t in r.taxes), Decimal(0))
        if "tax_base_total" in s.show and r.taxes:
            out += self.kv("tax_base_total", [f(self.money("tax_base_total", base))])
        if "tax_total" in s.show and r.taxes and "tax_table" not in s.show:
            out += self.kv("tax_total", [f(self.money("tax_total", r.tax_total))])
        out += self.kv("total", [f(self.money("total", r.total, code=True))], units=2,
                       cls="grand")
        if r.rounding:
            out += self.kv("rounding", [f(self.money("rounding", r.rounding))])
            out += self.kv("amount_due", [f(self.money("amount_due", r.amount_due,
                                                       code=True))])
        return out

    def pay(self) -> list[Row]:
        r = self.r
        method = Field("payment_method", self.s.line(self.words[r.payment_method]),
                       r.payment_method)
        out = [row([f(method)], [f(self.money("tendered", r.tendered))])]
        if "paid_total" in self.s.show:
            out += self.kv("paid_total", [f(self.money("paid_total", r.tendered))])
        if r.payment_method == "cash":
            out += self.kv("change", [f(self.money("change", r.change))])
        elif "slip" not in self.s.show:
            out += self.card_rows()
        return out

    def card_rows(self) -> list[Row]:
        r = self.r
        return [*self.kv("card_number", [f(text_field("card_number", f"**** {r.card_last4}"))]),
                *self.kv("auth_code", [f(text_field("auth_code", r.auth_code or ""))])]

    def taxes(self) -> list[Row]:
        """A tax summary table: per rate (code,) rate, net, tax, gross, and its total row;
        each money column as wide as its widest text."""
        r, s = self.r, self.s
        if "tax_table" not in s.show or not r.taxes:
            return []
        codes = self.tax_codes() if "tax_codes" in s.show else {}
        base = sum((t.base for t in r.taxes), Decimal(0))
        body = [[self.money("tax_base", t.base, k), self.money("tax_amount", t.amount, k),
                 self.money("tax_gross", t.base + t.amount, k)]
                for k, t in enumerate(r.taxes, start=1)]
        sums = [self.money("tax_base_total", base), self.money("tax_total", r.tax_total),
                self.money("tax_gross_total", base + r.tax_total)]
        heads = [self.column("tax_base", "tax_net"),
                 self.column("tax_amount", "col_tax", word=self.jur.tax_name),
                 self.column("tax_gross", "tax_gross")]
        widths = [max(columns(heads[c]["t"]), columns(sums[c].text),
                      *(columns(b[c].text) for b in body)) for c in range(3)]
        keep = [0, 1, 2] if sum(widths) + 12 <= self.cols else [1, 2]
        out = [row([self.column("tax_rate", "col_rate")],
                   [{**heads[c], "w": widths[c]} for c in keep], cls="b")]
        for k, t in enumerate(r.taxes, start=1):
            code = [f(Field("tax_code", codes[t.rate], codes[t.rate], k))] if codes else []
            rate = Field("tax_rate", self.jur.percent(t.rate), canonical(t.rate), k)
            out.append(row([*code, f(rate)], [f(body[k - 1][c], w=widths[c]) for c in keep]))
        names = " ".join(sums[c].name for c in keep)
        out += self.kv(names, [f(sums[c], w=widths[c]) for c in keep],
                       key="tax_summary_total")
        return out

    def slip(self) -> list[Row]:
        """The card terminal's slip: scheme, card, terminal, date and time, amount, auth."""
        r, s = self.r, self.s
        if "slip" not in s.show or r.payment_method == "cash":
            return []
        rng = random.Random(r.style_seed ^ 0x5A17)
        lang = self.jur.language
        out = self.center(rng.choice(SCHEMES))
        out += [r for line in rng.sample(SLIP[lang], rng.choices((1, 2), (3, 1))[0])
                for r in self.center(line)]
        out += self.card_rows()
        out += self.kv("terminal_id", [f(text_field("terminal_id",
                                                    f"{rng.randrange(10**8):08d}"))],
                       key="terminal")
        day = self.date_field("slip_date", s.slip_date_format, r.issue_date)
        out.append(row([f(day)], [f(self.time_field("slip_time", r.issue_time))]))
        out += self.kv("slip_amount", [f(self.money("slip_amount", r.amount_due,
                                                    code=True))], units=2, cls="grand")
        return out

    def loyalty(self) -> list[Row]:
        lo = self.r.loyalty
        if lo is None:
            return []
        return [*self.kv("member_number", [f(text_field("member_number", lo.member))],
                         key="member"),
                *self.kv("points_earned", [f(text_field("points_earned", str(lo.points)))],
                         key="points"),
                *self.kv("points_balance", [f(text_field("points_balance", str(lo.balance)))],
                         key="balance"),
                *self.kv("savings_ytd", [f(self.money("savings_ytd", lo.savings_ytd))])]

    def foot(self) -> list[Row]:
        r, s = self.r, self.s
        out: list[Row] = []
        if r.return_by is not None:
            out += self.kv("return_by", [f(self.date_field("return_by", s.date_format,
                                                           r.return_by))])
        out += [r for line in s.footer_lines for r in self.center(line)]
        if r.printed_at is not None:
            at = r.printed_at
            day = self.date_field("print_date", s.slip_date_format, at.date())
            clock = Field("print_time", f"{at:%H:%M:%S}", f"{at:%H:%M:%S}")
            word = self.key("print_stamp")
            key = [lab("print_date", word)] if word else []
            if width(key) + columns(day.text) + columns(clock.text) + 3 > self.cols:
                key = []
            out.append(row(key, [f(day), f(clock)]))
        return out


class Printer(SaleBlocks, SettlementBlocks):
    """Builds one receipt's rows in blocks (see the module docstring)."""

    def blocks(self) -> list[list[Row]]:
        parts = {"pay": self.pay, "taxes": self.taxes, "slip": self.slip,
                 "loyalty": self.loyalty, "foot": self.foot}
        info = self.info()
        out = [self.top()] + ([] if "info_bottom" in self.s.show else [info])
        out += [self.items(), self.totals()]
        out += [parts[name]() for name in self.s.tail]
        if "info_bottom" in self.s.show:
            out.insert(len(out) - (0 if self.s.tail[-1] != "foot" else 1), info)
        return [b for b in out if b]


def blocks_v2(r: Receipt, jur: Jurisdiction, layout: ReceiptLayout,
              words: dict[str, str]) -> list[list[Row]]:
    """Every printed row of a version-2 receipt, in blocks (a rule between two)."""
    return Printer(r, jur, layout, words).blocks()

