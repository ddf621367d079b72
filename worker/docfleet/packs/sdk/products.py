"""Product lines and their taxonomy: what a seller sells (the lines of invoices and
purchase orders), how a line is described, and how its quantity and price are drawn.

A seller sells one kind of thing, so every line of an invoice comes from one product line.
A line's description is composed from the product's taxonomy: the item's name in the
invoice's language, an attribute in that language (colour, material), and language-neutral
specifications (model, size, grade, pack, region) — e.g. ``Toner cartridge, cyan
TN-2420`` or ``六角ボルト ステンレス M8x40 x100``. :meth:`Product.describe` draws one
combination from a ``random.Random`` and never returns more than
:data:`MAX_DESCRIPTION` characters, so every archetype prints it on its row.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from docfleet.packs.sdk.locales import Jurisdiction
from docfleet.packs.sdk.money import cents

LANGUAGES = ("en", "fr", "de", "ja", "ar")
MAX_DESCRIPTION = 40
#: CJK characters are twice as wide as Latin ones: a Japanese line holds fewer
MAX_BY_LANGUAGE = {"ja": 24}

#: unit code → printed unit per language
UNITS: dict[str, dict[str, str]] = {
    "pcs": {"en": "pcs", "fr": "pce", "de": "Stk.", "ja": "個", "ar": "قطعة"},
    "box": {"en": "box", "fr": "boîte", "de": "Karton", "ja": "箱", "ar": "صندوق"},
    "h": {"en": "h", "fr": "h", "de": "Std.", "ja": "時間", "ar": "ساعة"},
    "day": {"en": "day", "fr": "jour", "de": "Tag", "ja": "日", "ar": "يوم"},
    "kwh": {"en": "kWh", "fr": "kWh", "de": "kWh", "ja": "kWh", "ar": "kWh"},
    "gb": {"en": "GB", "fr": "Go", "de": "GB", "ja": "GB", "ar": "GB"},
    "kg": {"en": "kg", "fr": "kg", "de": "kg", "ja": "kg", "ar": "كغ"},
    "month": {"en": "month", "fr": "mois", "de": "Monat", "ja": "ヶ月", "ar": "شهر"},
    "seat": {"en": "seat", "fr": "licence", "de": "Lizenz", "ja": "名", "ar": "ترخيص"},
}
#: printed decimals of a quantity by unit: countable things are whole
UNIT_PLACES: dict[str, int] = {"pcs": 0, "box": 0, "seat": 0, "month": 0, "day": 0,
                               "h": 2, "kwh": 1, "gb": 3, "kg": 2}

#: attribute axes in every language (same order of values in each)
ATTRIBUTES: dict[str, dict[str, tuple[str, ...]]] = {
    "colour": {
        "en": ("black", "blue", "red", "green", "cyan", "magenta", "yellow"),
        "fr": ("noir", "bleu", "rouge", "vert", "cyan", "magenta", "jaune"),
        "de": ("schwarz", "blau", "rot", "grün", "cyan", "magenta", "gelb"),
        "ja": ("黒", "青", "赤", "緑", "シアン", "マゼンタ", "イエロー"),
        "ar": ("أسود", "أزرق", "أحمر", "أخضر", "سماوي", "أرجواني", "أصفر"),
    },
    "material": {
        "en": ("zinc", "stainless", "galvanised", "brass"),
        "fr": ("zingué", "inox", "galvanisé", "laiton"),
        "de": ("verzinkt", "Edelstahl", "feuerverzinkt", "Messing"),
        "ja": ("亜鉛", "ステンレス", "溶融亜鉛", "真鍮"),
        "ar": ("مجلفن", "ستانلس", "مطلي", "نحاس"),
    },
    "roast": {
        "en": ("light roast", "medium roast", "dark roast"),
        "fr": ("torréfaction claire", "torréfaction moyenne", "torréfaction foncée"),
        "de": ("helle Röstung", "mittlere Röstung", "dunkle Röstung"),
        "ja": ("浅煎り", "中煎り", "深煎り"),
        "ar": ("تحميص فاتح", "تحميص متوسط", "تحميص داكن"),
    },
}

REGIONS = ("eu-west-1", "eu-central-1", "us-east-2", "ap-northeast-1", "me-south-1")
ORIGINS = ("Santos", "Huila", "Sidamo", "Antigua", "Sumatra", "Yirgacheffe", "Cerrado")
TOPICS = ("ERP", "CRM", "IFRS 17", "ISO 27001", "GDPR", "SAP S/4", "M&A", "Cloud")
APPS = ("Nimbus", "Orbit", "Vela", "Quill", "Atlas", "Lumen")


@dataclass(frozen=True)
class Product:
    """One sellable item. ``pricing``: flat (one price), tiered (unit price falls with the
    quantity, ``tiers`` = (min quantity, price) ascending), metered (fractional usage).
    ``names``: the item in each language; ``attribute``: a key of :data:`ATTRIBUTES`;
    ``specs``: language-neutral axes, one value drawn from each; ``{n}`` in a value is
    replaced by drawn digits (a meter or model number)."""

    code: str
    names: dict[str, str]  # language → item name
    unit: str
    price: tuple[str, str]  # flat / metered: (low, high) unit price range
    pricing: str = "flat"
    tax_class: str = "standard"
    tiers: tuple[tuple[int, str], ...] = ()
    quantity: tuple[int, int] = (1, 20)
    attribute: str | None = None
    specs: tuple[tuple[str, ...], ...] = ()

    def describe(self, language: str, rng: random.Random) -> str:
        """A description of this item in ``language``: name, attribute, specifications,
        at most :data:`MAX_DESCRIPTION` characters (:data:`MAX_BY_LANGUAGE` for wide
        scripts; specifications are dropped from the end until it fits)."""
        name = self.names[language]
        parts: list[str] = []
        if self.attribute is not None:
            parts.append(rng.choice(ATTRIBUTES[self.attribute][language]))
        for axis in self.specs:
            value = rng.choice(axis)
            if "{n}" in value:
                value = value.replace("{n}", str(rng.randint(1000, 99999)))
            parts.append(value)
        while parts:
            sep = " " if language in ("ja", "ar") else ", "
            text = f"{name}{sep}{' '.join(parts)}"
            if len(text) <= MAX_BY_LANGUAGE.get(language, MAX_DESCRIPTION):
                return text
            parts.pop()
        return name


@dataclass(frozen=True)
class ProductLine:
    key: str
    names: dict[str, str]
    products: tuple[Product, ...]


def _names(*names: str) -> dict[str, str]:
    return dict(zip(LANGUAGES, names, strict=True))


def _p(code: str, names: tuple[str, str, str, str, str], unit: str, lo: str, hi: str,
       **kw: Any) -> Product:
    return Product(code, _names(*names), unit, (lo, hi), **kw)


def _tiers(*pairs: tuple[int, str]) -> tuple[tuple[int, str], ...]:
    return tuple(pairs)


PACKS = ("x5", "x10", "x12", "x20", "x50")
BIG_PACKS = ("x50", "x100", "x200", "x500")

PRODUCT_LINES: tuple[ProductLine, ...] = (
    ProductLine("office", _names("Office supplies", "Fournitures de bureau", "Bürobedarf",
                                 "事務用品", "لوازم مكتبية"), (
        _p("PAP", ("Copy paper", "Papier copieur", "Kopierpapier", "コピー用紙", "ورق تصوير"),
           "box", "18.50", "32.00", pricing="tiered",
           tiers=_tiers((1, "29.90"), (10, "27.40"), (50, "24.95")), quantity=(1, 80),
           specs=(("A4", "A3", "A5", "Letter"), ("75 g/m²", "80 g/m²", "90 g/m²", "100 g/m²"),
                  ("5x500", "2x500", "1x500"))),
        _p("PEN", ("Ballpoint pens", "Stylos bille", "Kugelschreiber", "ボールペン",
                   "أقلام حبر جاف"), "box", "9.00", "21.00", attribute="colour",
           specs=(("BP-100", "BP-250", "Gel 07", "Slim 05", "Click 10"), PACKS)),
        _p("TON", ("Toner cartridge", "Cartouche de toner", "Tonerkartusche",
                   "トナーカートリッジ", "خرطوشة حبر"), "pcs", "49.00", "139.00",
           quantity=(1, 8), attribute="colour",
           specs=(("TN-2420", "TN-3480", "CF259A", "CE285A", "W2030X", "106R03621",
                   "TK-1170", "MLT-D116L"),)),
        _p("BND", ("Ring binders", "Classeurs", "Ringordner", "リングファイル", "ملفات حلقات"),
           "box", "12.00", "26.00", attribute="colour",
           specs=(("A4", "A5"), ("40 mm", "50 mm", "80 mm"), ("x5", "x10"))),
        _p("NTB", ("Notebooks", "Cahiers", "Notizhefte", "ノート", "دفاتر"), "box", "8.00",
           "19.50", tax_class="reduced",
           specs=(("A5", "A4", "B5"), ("5 mm", "7 mm", "8 mm"), ("x6", "x12"))),
        _p("DSK", ("Desk organiser", "Organiseur de bureau", "Schreibtisch-Organizer",
                   "デスクオーガナイザー", "منظم مكتب"), "pcs", "14.00", "39.00",
           attribute="colour", specs=(("DO-3", "DO-5", "Mesh 4", "Tri 2"),)),
    )),
    ProductLine("cloud", _names("Cloud hosting", "Hébergement cloud", "Cloud-Hosting",
                                "クラウドホスティング", "استضافة سحابية"), (
        _p("CMP", ("Compute instance", "Instance de calcul", "Compute-Instanz",
                   "仮想サーバー", "خادم افتراضي"), "h", "0.0420", "0.1890",
           pricing="metered", quantity=(10, 1500),
           specs=(("2 vCPU", "4 vCPU", "8 vCPU", "16 vCPU"), ("8 GB", "16 GB", "32 GB"),
                  REGIONS)),
        _p("STO", ("Object storage", "Stockage objet", "Objektspeicher",
                   "オブジェクトストレージ", "تخزين الكائنات"), "gb", "0.0180", "0.0260",
           pricing="metered", quantity=(50, 9000),
           specs=(("Standard", "Archive", "Cool", "Nearline"), REGIONS)),
        _p("EGR", ("Data transfer out", "Transfert sortant", "Datentransfer ausgehend",
                   "データ転送", "نقل البيانات الصادر"), "gb", "0.0500", "0.0900",
           pricing="metered", quantity=(5, 4000), specs=(REGIONS,)),
        _p("DBM", ("Managed database", "Base de données gérée", "Verwaltete Datenbank",
                   "マネージドDB", "قاعدة بيانات مدارة"), "h", "0.1100", "0.3400",
           pricing="metered", quantity=(10, 744),
           specs=(("PostgreSQL 16", "MySQL 8.0", "Redis 7", "MariaDB 11"),
                  ("2 vCPU", "4 vCPU", "8 vCPU"))),
        _p("SUP", ("Support plan", "Forfait support", "Supportplan", "サポートプラン",
                   "خطة الدعم"), "month", "99.00", "499.00", quantity=(1, 1),
           specs=(("Business", "Enterprise", "Developer", "Premium"),)),
        _p("IPV", ("Static IPv4 address", "Adresse IPv4 fixe", "Statische IPv4-Adresse",
                   "固定IPv4アドレス", "عنوان IPv4 ثابت"), "month", "3.00", "5.00",
           quantity=(1, 12), specs=(REGIONS,)),
    )),
    ProductLine("coffee", _names("Coffee wholesale", "Café en gros", "Kaffee-Großhandel",
                                 "コーヒー卸", "تجارة القهوة بالجملة"), (
        _p("ESP", ("Espresso beans", "Café en grains", "Espressobohnen", "エスプレッソ豆",
                   "حبوب إسبريسو"), "kg", "14.00", "29.00", pricing="tiered",
           tax_class="reduced", tiers=_tiers((1, "24.00"), (20, "21.50"), (100, "18.90")),
           quantity=(2, 160), attribute="roast", specs=(ORIGINS, ("1 kg", "500 g"))),
        _p("FLT", ("Filter coffee", "Café filtre", "Filterkaffee", "ドリップコーヒー",
                   "قهوة مقطرة"), "kg", "9.00", "19.00", tax_class="reduced",
           quantity=(2, 60), attribute="roast", specs=(ORIGINS, ("1 kg", "250 g"))),
        _p("DEC", ("Decaf beans", "Café décaféiné", "Entkoffeinierte Bohnen", "デカフェ豆",
                   "قهوة منزوعة الكافيين"), "kg", "16.00", "31.00", tax_class="reduced",
           quantity=(1, 30), specs=(ORIGINS, ("1 kg", "500 g"))),
        _p("CUP", ("Paper cups", "Gobelets carton", "Pappbecher", "紙コップ", "أكواب ورقية"),
           "box", "38.00", "64.00",
           specs=(("200 ml", "300 ml", "400 ml"), ("x500", "x1000"))),
        _p("GRN", ("Grinder maintenance", "Entretien de moulin", "Wartung Kaffeemühle",
                   "グラインダー保守", "صيانة المطحنة"), "pcs", "85.00", "160.00",
           quantity=(1, 2), specs=(("EK43", "Mythos One", "K30", "E65S", "Peak"),)),
    )),
    ProductLine("energy", _names("Electricity supply", "Fourniture d'électricité",
                                 "Stromversorgung", "電力供給", "إمداد الكهرباء"), (
        _p("KWD", ("Electricity, day rate", "Électricité, heures pleines", "Strom, Tagtarif",
                   "電力量料金 昼間", "كهرباء تعرفة النهار"), "kwh", "0.1800", "0.3600",
           pricing="metered", tax_class="reduced", quantity=(120, 9000),
           specs=(("M{n}",),)),
        _p("KWN", ("Electricity, night rate", "Électricité, heures creuses",
                   "Strom, Nachttarif", "電力量料金 夜間", "كهرباء تعرفة الليل"), "kwh",
           "0.1100", "0.2400", pricing="metered", tax_class="reduced", quantity=(60, 6000),
           specs=(("M{n}",),)),
        _p("STC", ("Standing charge", "Abonnement", "Grundgebühr", "基本料金",
                   "الرسوم الثابتة"), "month", "12.00", "45.00", tax_class="reduced",
           quantity=(1, 3), specs=(("6 kVA", "9 kVA", "12 kVA", "36 kVA"),)),
        _p("MTR", ("Smart meter rental", "Location compteur", "Zählermiete",
                   "スマートメーター賃料", "إيجار العداد الذكي"), "month", "2.50", "6.00",
           quantity=(1, 3), specs=(("M{n}",),)),
    )),
    ProductLine("consulting", _names("Consulting services", "Conseil", "Beratungsleistungen",
                                     "コンサルティング", "خدمات استشارية"), (
        _p("SNR", ("Senior consultant", "Consultant senior", "Senior-Berater",
                   "シニアコンサルタント", "مستشار أول"), "h", "120.00", "260.00",
           quantity=(2, 80), specs=(TOPICS,)),
        _p("JNR", ("Analyst", "Analyste", "Analyst", "アナリスト", "محلل"), "h", "60.00",
           "120.00", quantity=(4, 120), specs=(TOPICS,)),
        _p("WSH", ("Workshop facilitation", "Animation d'atelier", "Workshop-Moderation",
                   "ワークショップ運営", "إدارة ورشة عمل"), "day", "900.00", "2400.00",
           quantity=(1, 5), specs=(TOPICS,)),
        _p("TRV", ("Travel expenses, flat", "Frais de déplacement", "Reisekostenpauschale",
                   "出張旅費 定額", "مصاريف السفر"), "day", "80.00", "240.00",
           tax_class="zero", quantity=(1, 6)),
        _p("RPT", ("Written report", "Rapport écrit", "Schriftlicher Bericht", "報告書作成",
                   "تقرير مكتوب"), "pcs", "400.00", "1800.00", quantity=(1, 2),
           specs=(TOPICS,)),
    )),
    ProductLine("hardware", _names("Industrial fasteners", "Visserie industrielle",
                                   "Befestigungstechnik", "産業用締結部品", "مثبتات صناعية"), (
        _p("M6B", ("Hex bolts", "Vis hexagonales", "Sechskantschrauben", "六角ボルト",
                   "مسامير سداسية"), "box", "6.00", "14.00", pricing="tiered",
           tiers=_tiers((1, "11.80"), (25, "9.90"), (100, "8.45")), quantity=(1, 240),
           attribute="material",
           specs=(("M5x20", "M6x30", "M8x40", "M10x50", "M12x60"), ("DIN 933", "ISO 4017"),
                  BIG_PACKS)),
        _p("M8N", ("Hex nuts", "Écrous hexagonaux", "Sechskantmuttern", "六角ナット",
                   "صواميل سداسية"), "box", "9.00", "22.00", pricing="tiered",
           tiers=_tiers((1, "18.40"), (25, "16.10"), (100, "13.75")), quantity=(1, 180),
           attribute="material", specs=(("M6", "M8", "M10", "M12"), ("DIN 934", "ISO 4032"),
                                        BIG_PACKS)),
        _p("WSR", ("Flat washers", "Rondelles plates", "Unterlegscheiben", "平座金",
                   "حلقات مسطحة"), "box", "4.00", "11.00", quantity=(1, 60),
           attribute="material", specs=(("6 mm", "8 mm", "10 mm", "12 mm"), BIG_PACKS)),
        _p("ANC", ("Wall anchors", "Chevilles", "Dübel", "アンカー", "براغي تثبيت"), "box",
           "7.00", "15.00", quantity=(1, 50),
           specs=(("6 mm", "8 mm", "10 mm", "12 mm"), ("SX", "UX", "DuoPower"), BIG_PACKS)),
        _p("THR", ("Threaded rod", "Tige filetée", "Gewindestange", "全ねじボルト",
                   "قضيب ملولب"), "pcs", "2.10", "5.40", quantity=(5, 200),
           attribute="material", specs=(("M8", "M10", "M12", "M16"), ("1 m", "2 m"))),
    )),
    ProductLine("software", _names("Software licences", "Licences logicielles",
                                   "Softwarelizenzen", "ソフトウェアライセンス",
                                   "تراخيص البرمجيات"), (
        _p("LIC", ("Team edition, annual", "Édition Équipe, annuelle", "Team-Edition, jährlich",
                   "チーム版 年間", "إصدار الفريق سنوي"), "seat", "60.00", "240.00",
           pricing="tiered", tiers=_tiers((1, "199.00"), (25, "179.00"), (100, "149.00")),
           quantity=(3, 300), specs=(APPS, ("v5", "v6", "2025", "2026"))),
        _p("ADM", ("Admin console add-on", "Module console admin", "Admin-Konsole Zusatz",
                   "管理コンソール", "وحدة لوحة الإدارة"), "month", "49.00", "149.00",
           quantity=(1, 12), specs=(APPS,)),
        _p("ONB", ("Onboarding session", "Session de prise en main", "Einführungsschulung",
                   "導入トレーニング", "جلسة تدريب"), "h", "95.00", "180.00",
           quantity=(1, 16), specs=(APPS,)),
        _p("API", ("API calls, per 1000", "Appels API, par 1000", "API-Aufrufe, je 1000",
                   "API呼出し 1000回", "طلبات API لكل 1000"), "pcs", "0.0800", "0.4000",
           pricing="metered", quantity=(100, 50000), specs=(APPS,)),
        _p("SLA", ("Premium SLA", "SLA Premium", "Premium-SLA", "プレミアムSLA",
                   "اتفاقية خدمة مميزة"), "month", "150.00", "600.00", quantity=(1, 12),
           specs=(APPS, ("99.9%", "99.95%", "99.99%"))),
    )),
    ProductLine("print", _names("Print shop", "Imprimerie", "Druckerei", "印刷", "مطبعة"), (
        _p("BCD", ("Business cards", "Cartes de visite", "Visitenkarten", "名刺",
                   "بطاقات عمل"), "box", "19.00", "45.00", pricing="tiered",
           tiers=_tiers((1, "39.00"), (10, "34.50"), (40, "29.00")), quantity=(1, 60),
           specs=(("85x55 mm", "90x50 mm"), ("350 g/m²", "400 g/m²"),
                  ("x250", "x500", "x1000"))),
        _p("FLY", ("Flyers", "Flyers", "Flyer", "チラシ", "منشورات"), "pcs", "0.0600",
           "0.2200", pricing="metered", quantity=(250, 20000),
           specs=(("A5", "A4", "A6", "DL"), ("135 g/m²", "170 g/m²"), ("4/4", "4/0"))),
        _p("BRO", ("Brochures", "Brochures", "Broschüren", "パンフレット", "كتيبات"), "pcs",
           "1.20", "3.80", quantity=(50, 2000),
           specs=(("A4", "A5"), ("8pp", "16pp", "24pp", "32pp"))),
        _p("BKS", ("Printed books, softcover", "Livres brochés", "Bücher, Softcover",
                   "書籍 ソフトカバー", "كتب مطبوعة"), "pcs", "4.00", "12.00",
           tax_class="zero", quantity=(20, 800),
           specs=(("A5", "B5", "15x23 cm"), ("ISBN 978-{n}",))),
        _p("PST", ("Posters", "Affiches", "Poster", "ポスター", "ملصقات"), "pcs", "3.50",
           "9.00", quantity=(5, 300),
           specs=(("A3", "A2", "A1", "B2"), ("150 g/m²", "200 g/m²"))),
    )),
)

#: the longest description any product can print in any language
LONGEST_DESCRIPTION = "W" * MAX_DESCRIPTION

#: unit prices are drawn in "USD-like" ranges and scaled into the currency
PRICE_SCALE: dict[str, Decimal] = {"JPY": Decimal(150)}


def draw_quantity(rng: random.Random, product: Product) -> tuple[Decimal, int]:
    """A quantity with the decimals its unit prints: pieces, boxes, seats are whole."""
    lo, hi = product.quantity
    spread = rng.random() ** 2
    places = UNIT_PLACES[product.unit]
    if product.pricing == "metered" and places:
        step = Decimal(1).scaleb(-places)
        raw = Decimal(lo) + (Decimal(hi - lo) * Decimal(str(round(spread, 6))))
        return max(raw.quantize(step), step), places
    return Decimal(lo + int((hi - lo) * spread)), 0


def draw_unit_price(rng: random.Random, product: Product, quantity: Decimal,
                    jur: Jurisdiction) -> tuple[Decimal, int]:
    """(unit price in ``jur``'s currency, its printed decimals): the tier the quantity
    reaches, else drawn in the product's range (metered rates carry 4 decimals)."""
    scale = PRICE_SCALE.get(jur.currency, Decimal(1))
    whole = jur.places == 0
    if product.pricing == "tiered":
        price = Decimal(product.tiers[0][1])
        for minimum, tier_price in product.tiers:
            if quantity >= minimum:
                price = Decimal(tier_price)
        if scale != 1:
            price = cents(price * scale, 0 if whole else 2)
        return price, 0 if whole else 2
    lo, hi = (Decimal(p) * scale for p in product.price)
    places = 4 if product.pricing == "metered" else 2
    if whole:
        places = 2 if product.pricing == "metered" else 0
    step = Decimal(1).scaleb(-places)
    steps = int((hi - lo) / step)
    price = lo + step * rng.randint(0, steps)
    if places == 2 and rng.random() < 0.5:  # prices like 24.90, 139.00
        price = cents(price).quantize(Decimal("0.1"))
    return price.quantize(step), places
