"""The ``label`` pack: a parcel shipping label (sender, recipient, tracking number, ship
date, weight, postage) in every locale docfleet has and under every capture condition,
with exact golden truth — the smallest whole pack on the pack SDK (docs/packs.md walks
through it). It imports only ``docfleet.packs.sdk``, ``docfleet.packs.base``,
``docfleet.core`` and ``docfleet.render``; its templates ship in ``templates/``.

Printed field names: sender_name, sender_address, recipient_name, recipient_address,
recipient_phone, tracking_number, ship_date, weight, postage. Archetypes: standard (a
4 x 6 in label), express (an A6 label with a banner).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pyarrow as pa

from docfleet.core.seeding import document_rng
from docfleet.packs.sdk.fields import (
    date_field,
    money_field,
    number_field,
    party_fields,
    text_field,
)
from docfleet.packs.sdk.locales import JURISDICTIONS, US_STATE_RATES
from docfleet.packs.sdk.money import ReconciliationError, round_money
from docfleet.packs.sdk.options import PackOptions, kinds
from docfleet.packs.sdk.pack import TemplatedPack
from docfleet.packs.sdk.pages import Page
from docfleet.packs.sdk.parties import Party, party, seeded_faker
from docfleet.packs.sdk.rows import document_meta
from docfleet.packs.sdk.schema import MONEY, meta_fields
from docfleet.packs.sdk.session import PrintedDocument
from docfleet.packs.sdk.style import PALETTES, SANS, barcode_bars
from docfleet.packs.sdk.text import digits, fit, labels_for

#: archetype → page size in CSS px (96/in): a 4 x 6 in label, an A6 one
PAGES = {"standard": (384, 576), "express": (397, 559)}
FIRST_DAY = dt.date(2023, 1, 1)
#: the printed words, per language (other languages print English: ``labels_for``)
LABELS = {
    "en": {"title": "PARCEL", "express": "EXPRESS", "from": "From", "to": "Ship to",
           "tracking_number": "Tracking no.", "ship_date": "Ship date", "weight": "Weight",
           "postage": "Postage", "phone": "Tel."},
    "fr": {"title": "COLIS", "express": "EXPRESS", "from": "Expéditeur",
           "to": "Destinataire", "tracking_number": "N° de suivi",
           "ship_date": "Date d'envoi", "weight": "Poids", "postage": "Affranchissement",
           "phone": "Tél."},
    "de": {"title": "PAKET", "express": "EXPRESS", "from": "Absender", "to": "Empfänger",
           "tracking_number": "Sendungsnr.", "ship_date": "Versanddatum",
           "weight": "Gewicht", "postage": "Porto", "phone": "Tel."},
    "ja": {"title": "宅配便", "express": "速達", "from": "ご依頼主", "to": "お届け先",
           "tracking_number": "お問合せ番号", "ship_date": "発送日", "weight": "重量",
           "postage": "送料", "phone": "電話"},
    "ar": {"title": "طرد", "express": "سريع", "from": "المرسل", "to": "المرسل إليه",
           "tracking_number": "رقم التتبع", "ship_date": "تاريخ الشحن", "weight": "الوزن",
           "postage": "رسوم الشحن", "phone": "هاتف"},
}
#: columns a printed line may take (the layout check fails a document that overflows)
WIDTH = 36

SHIPMENTS = pa.schema([
    *meta_fields()[0],
    pa.field("tracking_number", pa.string(), nullable=False),
    pa.field("ship_date", pa.date32(), nullable=False),
    pa.field("sender_name", pa.string(), nullable=False),
    pa.field("sender_address", pa.string(), nullable=False),  # lines joined by "\n"
    pa.field("recipient_name", pa.string(), nullable=False),
    pa.field("recipient_address", pa.string(), nullable=False),
    pa.field("recipient_phone", pa.string(), nullable=False),
    pa.field("weight", pa.decimal128(18, 3), nullable=False),  # kg
    pa.field("postage", MONEY, nullable=False),
    *meta_fields()[1],
])


@dataclass(frozen=True)
class Shipment:
    """One label as printed; refuses to exist with an amount that is not exact."""

    document: int
    archetype: str
    locale: str
    condition: str
    format: str
    currency: str
    issue_date: dt.date  # the ship date (and the PDF's date)
    tracking_number: str
    sender: Party
    recipient: Party
    weight: Decimal
    postage: Decimal
    style_seed: int

    def __post_init__(self) -> None:
        if self.postage != round_money(self.postage, self.currency) or self.weight <= 0:
            raise ReconciliationError(f"label {self.tracking_number}: postage {self.postage} "
                                      f"or weight {self.weight} is not exact")

    @property
    def file(self) -> str:
        return f"{self.document:06d}.{'html' if self.format == 'html' else 'pdf'}"


def _fitted(p: Party) -> Party:
    """``p`` with every printed line within :data:`WIDTH` columns."""
    return Party(fit(p.name, WIDTH), tuple(fit(line, WIDTH) for line in p.address),
                 p.tax_id, fit(p.phone, WIDTH), p.email)


class ShipmentSource:
    """Deterministic labels: every draw from ``document_rng(run_id, index)``."""

    def __init__(self, options: PackOptions) -> None:
        self.options = options

    def generate(self, run_id: str, index: int) -> Shipment:
        rng = document_rng(run_id, index)
        locale, archetype, condition = kinds(rng, index, self.options)
        jur = JURISDICTIONS[locale]
        fake = seeded_faker(rng, jur)
        states = sorted(US_STATE_RATES)
        sender, _ = party(rng, fake, jur, seller=True,
                          state=rng.choice(states) if locale == "en-US" else None)
        recipient, _ = party(rng, fake, jur, seller=False,
                             state=rng.choice(states) if locale == "en-US" else None)
        scale = 150 if jur.places == 0 else 1  # yen
        return Shipment(
            document=index, archetype=archetype, locale=locale, condition=condition,
            format=self.options.format, currency=jur.currency,
            issue_date=FIRST_DAY + dt.timedelta(days=rng.randrange(3 * 365)),
            tracking_number=f"{rng.choice(('1Z', 'JD', 'CP'))}{digits(rng, 14)}",
            sender=_fitted(sender), recipient=_fitted(recipient),
            weight=Decimal(rng.randint(50, 30_000)).scaleb(-3),
            postage=round_money(Decimal(rng.randint(390, 4990)).scaleb(-2) * scale,
                                jur.currency),
            style_seed=rng.getrandbits(32),
        )


class LabelSteps:
    """The label's steps of the SDK pipeline."""

    tables = {"shipments": SHIPMENTS}
    markable = ("tracking_number", "postage")

    def source(self, options: PackOptions) -> ShipmentSource:
        return ShipmentSource(options)

    def page_size(self, record: Shipment) -> tuple[int, int]:
        return PAGES[record.archetype]

    def template(self, record: Shipment) -> str:
        return f"{record.archetype}.html.j2"

    def context(self, s: Shipment) -> dict[str, Any]:
        jur = JURISDICTIONS[s.locale]
        style = random.Random(s.style_seed)
        width, height = PAGES[s.archetype]
        return {
            "lang": jur.language, "dir": jur.direction, "title": s.tracking_number,
            "page_w": width, "page_h": height, "font": (jur.fonts or SANS)[0],
            "font_size": 13, "line_height": jur.line_height,
            "primary": style.choice(PALETTES)[0], "L": labels_for(LABELS, jur.language),
            "sender": party_fields("sender", s.sender),
            "recipient": party_fields("recipient", s.recipient),
            "tracking_number": text_field("tracking_number", s.tracking_number),
            "ship_date": date_field(jur, "ship_date", s.issue_date),
            "weight": number_field(jur, "weight", s.weight, 3),
            "postage": money_field(jur, "postage", s.postage),
            "bars": barcode_bars(s.tracking_number, width - 40),
            "pages": [Page(1, 1, [], True)],
        }

    def rows(self, s: Shipment, printed: PrintedDocument | None
             ) -> dict[str, list[dict[str, Any]]]:
        return {"shipments": [{
            **document_meta(s, printed.pages if printed else None,
                            printed.size if printed else None),
            "tracking_number": s.tracking_number, "ship_date": s.issue_date,
            "sender_name": s.sender.name, "sender_address": "\n".join(s.sender.address),
            "recipient_name": s.recipient.name,
            "recipient_address": "\n".join(s.recipient.address),
            "recipient_phone": s.recipient.phone, "weight": s.weight, "postage": s.postage,
        }]}


class LabelPack(TemplatedPack):
    """Parcel shipping labels with exact golden truth (see the module docstring)."""

    name = "label"
    archetypes = tuple(PAGES)
    steps = LabelSteps()
    max_lines = 1  # a label has no lines
