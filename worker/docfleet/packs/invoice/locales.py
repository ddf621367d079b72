"""Jurisdictions: currency, tax regime, printed labels and number/date formats per locale.

Formatting here is the single source of every printed money, quantity, percent and date
string, so golden ``fields.text`` and the page agree by construction.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

NBSP = "\u00a0"

MONTHS = {
    "en": ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"),
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
           "septembre", "octobre", "novembre", "décembre"),
    "de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
           "September", "Oktober", "November", "Dezember"),
}

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "invoice": "Invoice", "INVOICE": "INVOICE", "receipt": "Invoice / Receipt",
        "invoice_number": "Invoice no.", "issue_date": "Invoice date", "due_date": "Due date",
        "po_number": "PO number", "bill_to": "Bill to", "from": "From", "sku": "SKU",
        "description": "Description", "quantity": "Qty", "unit": "Unit",
        "unit_price": "Unit price", "discount": "Disc.", "amount": "Amount",
        "subtotal": "Subtotal", "discount_total": "Discounts included", "total": "Total due",
        "tax_id": "Tax ID", "phone": "Phone", "email": "Email", "bank": "Payment details",
        "iban": "IBAN", "bic": "BIC", "account": "Account", "page": "Page", "of": "of",
        "continued": "continued", "terms": "Payment due within {days} days of the invoice date.",
        "thanks": "Thank you for your business.", "on": "on",
    },
    "fr": {
        "invoice": "Facture", "INVOICE": "FACTURE", "receipt": "Facture / Reçu",
        "invoice_number": "Facture n°", "issue_date": "Date de facture",
        "due_date": "Date d'échéance", "po_number": "Bon de commande", "bill_to": "Facturé à",
        "from": "Émetteur", "sku": "Réf.", "description": "Désignation",
        "quantity": "Qté", "unit": "Unité", "unit_price": "Prix unitaire HT",
        "discount": "Remise", "amount": "Montant HT", "subtotal": "Total HT",
        "discount_total": "Remises incluses", "total": "Total TTC",
        "tax_id": "N° TVA intracom.", "phone": "Tél.", "email": "E-mail",
        "bank": "Coordonnées bancaires", "iban": "IBAN", "bic": "BIC", "account": "Compte",
        "page": "Page", "of": "sur", "continued": "suite",
        "terms": "Paiement à {days} jours à compter de la date de facture.",
        "thanks": "Merci de votre confiance.", "on": "sur",
    },
    "de": {
        "invoice": "Rechnung", "INVOICE": "RECHNUNG", "receipt": "Rechnung / Quittung",
        "invoice_number": "Rechnungsnr.", "issue_date": "Rechnungsdatum",
        "due_date": "Fällig am", "po_number": "Bestellnr.", "bill_to": "Rechnungsempfänger",
        "from": "Absender", "sku": "Art.-Nr.", "description": "Bezeichnung",
        "quantity": "Menge", "unit": "Einheit", "unit_price": "Einzelpreis",
        "discount": "Rabatt", "amount": "Betrag netto", "subtotal": "Zwischensumme netto",
        "discount_total": "Enthaltene Rabatte", "total": "Gesamtbetrag",
        "tax_id": "USt-IdNr.", "phone": "Tel.", "email": "E-Mail", "bank": "Bankverbindung",
        "iban": "IBAN", "bic": "BIC", "account": "Konto", "page": "Seite", "of": "von",
        "continued": "Fortsetzung",
        "terms": "Zahlbar innerhalb von {days} Tagen ab Rechnungsdatum.",
        "thanks": "Vielen Dank für Ihren Auftrag.", "on": "auf",
    },
}


@dataclass(frozen=True)
class Jurisdiction:
    """One locale's money, tax and print conventions."""

    locale: str  # BCP 47, e.g. fr-FR
    faker_locale: str
    language: str  # key of LABELS / MONTHS
    currency: str
    symbol: str
    symbol_first: bool
    group: str  # thousands separator
    decimal: str
    tax_name: str  # printed tax label: "Sales tax", "VAT", "TVA", "USt."
    #: tax class → rate in percent
    rates: dict[str, Decimal]
    date_style: str  # numeric date pattern: mdy | dmy/ | dmy.
    page: tuple[int, int]  # page size in CSS px (96/in): Letter or A4
    tax_id_prefix: str

    @property
    def labels(self) -> dict[str, str]:
        return LABELS[self.language]

    def money(self, amount: Decimal) -> str:
        """``1234.5`` → ``$1,234.50`` / ``£1,234.50`` / ``1 234,50 €`` / ``1.234,50 €``."""
        number = self.number(amount, 2)
        return f"{self.symbol}{number}" if self.symbol_first else f"{number}{NBSP}{self.symbol}"

    def number(self, value: Decimal, places: int) -> str:
        """Group and localise ``value`` with exactly ``places`` decimals."""
        quantum = Decimal(1).scaleb(-places)
        text = f"{abs(value.quantize(quantum)):,.{places}f}"
        whole, _, frac = text.partition(".")
        whole = whole.replace(",", self.group)
        sign = "-" if value < 0 else ""
        return f"{sign}{whole}{self.decimal}{frac}" if places else f"{sign}{whole}"

    def percent(self, rate: Decimal) -> str:
        """``20`` → ``20%`` / ``20 %``; ``8.875`` → ``8.875%``; ``5.5`` → ``5,5 %``."""
        text = canonical(rate).replace(".", self.decimal)
        return f"{text}%" if self.language == "en" else f"{text}{NBSP}%"

    def date(self, day: dt.date, long: bool = False) -> str:
        """A numeric date, or a long one with the month's name (``5 mars 2024``)."""
        if long:
            month = MONTHS[self.language][day.month - 1]
            if self.locale == "en-US":
                return f"{month} {day.day}, {day.year}"
            if self.language == "de":
                return f"{day.day}. {month} {day.year}"
            return f"{day.day} {month} {day.year}"
        if self.date_style == "mdy":
            return f"{day.month:02d}/{day.day:02d}/{day.year}"
        if self.date_style == "dmy.":
            return f"{day.day:02d}.{day.month:02d}.{day.year}"
        return f"{day.day:02d}/{day.month:02d}/{day.year}"


def canonical(value: Decimal) -> str:
    """The canonical text of a decimal: no exponent, no trailing fractional zeros."""
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


LETTER = (816, 1056)
A4 = (794, 1123)

JURISDICTIONS: dict[str, Jurisdiction] = {
    "en-US": Jurisdiction(
        "en-US", "en_US", "en", "USD", "$", True, ",", ".", "Sales tax",
        {"standard": Decimal("8.875"), "reduced": Decimal("4.5"), "zero": Decimal("0")},
        "mdy", LETTER, "EIN",
    ),
    "en-GB": Jurisdiction(
        "en-GB", "en_GB", "en", "GBP", "£", True, ",", ".", "VAT",
        {"standard": Decimal("20"), "reduced": Decimal("5"), "zero": Decimal("0")},
        "dmy/", A4, "GB",
    ),
    "fr-FR": Jurisdiction(
        "fr-FR", "fr_FR", "fr", "EUR", "€", False, NBSP, ",", "TVA",
        {"standard": Decimal("20"), "reduced": Decimal("5.5"), "zero": Decimal("2.1")},
        "dmy/", A4, "FR",
    ),
    "de-DE": Jurisdiction(
        "de-DE", "de_DE", "de", "EUR", "€", False, ".", ",", "USt.",
        {"standard": Decimal("19"), "reduced": Decimal("7"), "zero": Decimal("0")},
        "dmy.", A4, "DE",
    ),
}

#: US sales tax differs by state; a seller's state picks its combined rate.
US_STATE_RATES: dict[str, Decimal] = {
    "NY": Decimal("8.875"), "CA": Decimal("7.25"), "TX": Decimal("6.25"), "WA": Decimal("10.1"),
    "IL": Decimal("10.25"), "FL": Decimal("7"), "MA": Decimal("6.25"), "CO": Decimal("8.81"),
}
