"""Procedural text: free, offline, deterministic per item; used when no model wrote one."""

from __future__ import annotations

import hashlib

from docfleet.catalogue.plan import Item

_SUBJECT = {
    "en": {"office": "office supplies", "cloud": "cloud services", "coffee": "coffee",
           "energy": "energy", "consulting": "consulting", "hardware": "fasteners",
           "software": "software", "print": "printing"},
    "fr": {"office": "fournitures", "cloud": "services cloud", "coffee": "café",
           "energy": "énergie", "consulting": "conseil", "hardware": "visserie",
           "software": "logiciels", "print": "impression"},
    "de": {"office": "Bürobedarf", "cloud": "Cloud-Dienste", "coffee": "Kaffee",
           "energy": "Energie", "consulting": "Beratung", "hardware": "Befestigungstechnik",
           "software": "Software", "print": "Druck"},
}
_TEMPLATES = {
    "description": {
        "en": ["Assorted {s}", "Standard {s} package", "{s}, monthly"],
        "fr": ["Lot de {s}", "Forfait {s}", "{s}, mensuel"],
        "de": ["Sortiment {s}", "Paket {s}", "{s}, monatlich"],
    },
    "tagline": {
        "en": ["Your partner for {s}", "Quality {s} since 1998", "{s} done right"],
        "fr": ["Votre partenaire pour {s}", "La qualité en {s}", "{s} de confiance"],
        "de": ["Ihr Partner für {s}", "Qualität in {s}", "{s} mit Erfahrung"],
    },
    "payment_terms": {
        "en": ["Payment due within 30 days of the invoice date.",
               "Please pay within 14 days by bank transfer."],
        "fr": ["Paiement à 30 jours à compter de la date de facture.",
               "Règlement par virement sous 14 jours."],
        "de": ["Zahlbar innerhalb von 30 Tagen nach Rechnungsdatum.",
               "Bitte überweisen Sie den Betrag innerhalb von 14 Tagen."],
    },
    "note": {
        "en": ["Thank you for your business.", "Thank you for choosing us for {s}."],
        "fr": ["Merci de votre confiance.", "Merci d'avoir choisi nos {s}."],
        "de": ["Vielen Dank für Ihren Auftrag.", "Vielen Dank für Ihr Vertrauen."],
    },
}


def procedural_text(item: Item) -> str:
    """A deterministic text for ``item`` within its kind's length limit."""
    lang = item.language
    options = _TEMPLATES[item.kind][lang]
    pick = int.from_bytes(hashlib.sha256(item.key.encode()).digest()[:4], "big")
    text = options[pick % len(options)].format(s=_SUBJECT[lang][item.line])
    text = text[0].upper() + text[1:]
    return text[: item.max_chars]
