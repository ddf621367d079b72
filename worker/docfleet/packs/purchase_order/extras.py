"""What a content-3 purchase order prints besides its core (issue 25): real orders differ
in which optional parts they carry — Incoterms and a delivery place, the buyer's vendor
number, either party's tax number, a requested date per line — and many print amounts
that look like the order's value without being it: the approved budget, a blanket
order's value and what has been released against it to date, the supplier's credit
limit. :func:`draw_extras` draws both from a random stream of its own (seeded from the
document seed), so a version-1/2 order's draws are untouched.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from docfleet.packs.sdk.money import money_quantum, round_money

#: share of content-3 orders printing each optional part (≤ 30 %: no part an order does not
#: require is on most orders)
SHOW = {"incoterm": 0.24, "supplier_number": 0.24, "buyer_tax_id": 0.22,
        "supplier_tax_id": 0.24, "requested_date": 0.2}
#: share of content-3 orders printing each look-alike amount
LOOK_ALIKES = {"budget_amount": 0.24, "blanket": 0.22, "credit_limit": 0.2}

#: the words printed beside each look-alike, per language, the commonest first
WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "budget_amount": ("Approved budget", "Budget", "Approved amount", "Budget amount",
                          "Authorised amount", "Cost centre budget", "Approval limit"),
        "blanket_value": ("Blanket order value", "Contract value", "Agreement value",
                          "Blanket PO value", "Framework value", "Total contract value"),
        "released_to_date": ("Released to date", "Ordered to date", "Order-to-date total",
                             "Cumulative value", "Total released", "Spent to date"),
        "credit_limit": ("Credit limit", "Supplier credit limit", "Account limit",
                         "Credit line", "Approved credit"),
    },
    "fr": {
        "budget_amount": ("Budget approuvé", "Budget", "Montant autorisé", "Enveloppe",
                          "Budget du centre de coût", "Plafond d'engagement"),
        "blanket_value": ("Montant du contrat-cadre", "Valeur du contrat",
                          "Montant de la commande ouverte", "Accord-cadre"),
        "released_to_date": ("Engagé à ce jour", "Cumul commandé", "Cumul des appels",
                             "Montant appelé", "Déjà commandé"),
        "credit_limit": ("Plafond de crédit", "Encours autorisé", "Limite de crédit",
                         "Encours maximum"),
    },
    "de": {
        "budget_amount": ("Genehmigtes Budget", "Budget", "Freigabebetrag",
                          "Kostenstellenbudget", "Genehmigter Betrag", "Budgetrahmen"),
        "blanket_value": ("Rahmenvertragswert", "Rahmenauftrag", "Vertragswert",
                          "Wert des Rahmenvertrags", "Kontraktwert"),
        "released_to_date": ("Bisher abgerufen", "Abrufe bisher", "Kumulierter Wert",
                             "Bereits bestellt", "Summe Abrufe"),
        "credit_limit": ("Kreditlimit", "Kreditrahmen", "Lieferantenlimit", "Limit"),
    },
    "ja": {
        "budget_amount": ("承認予算", "予算額", "予算", "承認金額", "予算枠", "決裁金額"),
        "blanket_value": ("基本契約金額", "契約総額", "契約金額", "包括発注金額"),
        "released_to_date": ("累計発注額", "発注済累計", "既発注額", "累計金額"),
        "credit_limit": ("与信限度額", "取引限度額", "与信枠", "限度額"),
    },
    "ar": {
        "budget_amount": ("الميزانية المعتمدة", "الميزانية", "المبلغ المعتمد",
                          "ميزانية مركز التكلفة", "Approved budget"),
        "blanket_value": ("قيمة العقد", "قيمة الاتفاقية الإطارية", "قيمة أمر الشراء المفتوح",
                          "Contract value"),
        "released_to_date": ("المطلوب حتى تاريخه", "إجمالي المطلوب حتى الآن",
                             "القيمة التراكمية", "Released to date"),
        "credit_limit": ("حد الائتمان", "الحد الائتماني", "Credit limit"),
    },
}


@dataclass(frozen=True)
class OrderExtras:
    """Which optional parts a content-3 order prints, and its look-alike amounts (None:
    not printed). Money is exact to the currency's minor unit."""

    shown: frozenset[str]
    budget_amount: Decimal | None = None
    blanket_value: Decimal | None = None
    released_to_date: Decimal | None = None
    credit_limit: Decimal | None = None

    def amounts(self) -> dict[str, Decimal | None]:
        return {"budget_amount": self.budget_amount, "blanket_value": self.blanket_value,
                "released_to_date": self.released_to_date, "credit_limit": self.credit_limit}


def _round_up(value: Decimal, currency: str) -> Decimal:
    """``value`` rounded up to a budget's round step (100 units; 10,000 yen)."""
    step = Decimal(10000) if money_quantum(currency) == 1 else Decimal(100)
    return (value / step).to_integral_value(rounding=ROUND_CEILING) * step


def draw_extras(rng: random.Random, total: Decimal, currency: str) -> OrderExtras:
    """A content-3 order's optional parts and look-alikes, drawn from ``rng`` (a stream
    of their own) in a fixed order: a budget of 1.05-3x the total rounded up; a blanket
    order worth 2-20x the total of which this release and earlier ones (0-80 % of the
    rest) are drawn; a credit limit of 0.5-8x the total, rounded."""
    shown = frozenset(k for k in sorted(SHOW) if rng.random() < SHOW[k])
    budget = blanket = released = limit = None
    if rng.random() < LOOK_ALIKES["budget_amount"]:
        budget = _round_up(total * Decimal(rng.randint(105, 300)) / 100, currency)
    if rng.random() < LOOK_ALIKES["blanket"]:
        blanket = _round_up(total * rng.randint(2, 20), currency)
        earlier = round_money((blanket - total) * Decimal(rng.randint(0, 80)) / 100, currency)
        released = earlier + total
    if rng.random() < LOOK_ALIKES["credit_limit"]:
        limit = _round_up(total * Decimal(rng.randint(50, 800)) / 100, currency)
    return OrderExtras(shown, budget, blanket, released, limit)
