"""Product lines: what a seller sells. A seller sells one kind of thing, so every line of
an invoice comes from one product line. Descriptions stay under 40 characters so every
archetype prints them on one row."""

from __future__ import annotations

from dataclasses import dataclass

#: unit code → printed unit per language
UNITS: dict[str, dict[str, str]] = {
    "pcs": {"en": "pcs", "fr": "pce", "de": "Stk."},
    "box": {"en": "box", "fr": "boîte", "de": "Karton"},
    "h": {"en": "h", "fr": "h", "de": "Std."},
    "day": {"en": "day", "fr": "jour", "de": "Tag"},
    "kwh": {"en": "kWh", "fr": "kWh", "de": "kWh"},
    "gb": {"en": "GB", "fr": "Go", "de": "GB"},
    "kg": {"en": "kg", "fr": "kg", "de": "kg"},
    "month": {"en": "month", "fr": "mois", "de": "Monat"},
    "seat": {"en": "seat", "fr": "licence", "de": "Lizenz"},
}


@dataclass(frozen=True)
class Product:
    """One sellable item. ``pricing``: flat (one price), tiered (unit price falls with the
    quantity, ``tiers`` = (min quantity, price) ascending), metered (fractional usage)."""

    code: str
    names: dict[str, str]  # language → description
    unit: str
    price: tuple[str, str]  # flat / metered: (low, high) unit price range
    pricing: str = "flat"
    tax_class: str = "standard"
    tiers: tuple[tuple[int, str], ...] = ()
    quantity: tuple[int, int] = (1, 20)


@dataclass(frozen=True)
class ProductLine:
    key: str
    names: dict[str, str]
    products: tuple[Product, ...]


def _p(code: str, en: str, fr: str, de: str, unit: str, lo: str, hi: str, **kw: object) -> Product:
    return Product(code, {"en": en, "fr": fr, "de": de}, unit, (lo, hi), **kw)  # type: ignore[arg-type]


def _tiers(*pairs: tuple[int, str]) -> tuple[tuple[int, str], ...]:
    return tuple(pairs)


PRODUCT_LINES: tuple[ProductLine, ...] = (
    ProductLine("office", {"en": "Office supplies", "fr": "Fournitures de bureau",
                           "de": "Bürobedarf"}, (
        _p("PAP", "Copy paper A4 80 g/m², 5 reams", "Papier A4 80 g/m², 5 ramettes",
           "Kopierpapier A4 80 g/m², 5 Pakete", "box", "18.50", "32.00", pricing="tiered",
           tiers=_tiers((1, "29.90"), (10, "27.40"), (50, "24.95")), quantity=(1, 80)),
        _p("PEN", "Ballpoint pens, blue, pack of 50", "Stylos bille bleus, lot de 50",
           "Kugelschreiber blau, 50er-Pack", "box", "9.00", "21.00"),
        _p("TON", "Toner cartridge, black", "Cartouche de toner noir",
           "Tonerkartusche schwarz", "pcs", "49.00", "139.00", quantity=(1, 8)),
        _p("BND", "Ring binders A4, 10 pack", "Classeurs à anneaux A4, lot de 10",
           "Ringordner A4, 10 Stück", "box", "12.00", "26.00"),
        _p("NTB", "Notebooks A5 ruled, 12 pack", "Cahiers A5 lignés, lot de 12",
           "Notizhefte A5 liniert, 12 Stück", "box", "8.00", "19.50", tax_class="reduced"),
        _p("DSK", "Desk organiser, steel mesh", "Organiseur de bureau, métal",
           "Schreibtisch-Organizer, Metall", "pcs", "14.00", "39.00"),
    )),
    ProductLine("cloud", {"en": "Cloud hosting", "fr": "Hébergement cloud",
                          "de": "Cloud-Hosting"}, (
        _p("CMP", "Compute instance, 4 vCPU", "Instance de calcul, 4 vCPU",
           "Compute-Instanz, 4 vCPU", "h", "0.0420", "0.1890", pricing="metered",
           quantity=(10, 1500)),
        _p("STO", "Object storage", "Stockage objet", "Objektspeicher", "gb", "0.0180",
           "0.0260", pricing="metered", quantity=(50, 9000)),
        _p("EGR", "Data transfer out", "Transfert de données sortant",
           "Ausgehender Datentransfer", "gb", "0.0500", "0.0900", pricing="metered",
           quantity=(5, 4000)),
        _p("DBM", "Managed database, 2 vCPU", "Base de données gérée, 2 vCPU",
           "Verwaltete Datenbank, 2 vCPU", "h", "0.1100", "0.3400", pricing="metered",
           quantity=(10, 744)),
        _p("SUP", "Business support plan", "Support Business", "Business-Supportplan",
           "month", "99.00", "499.00", quantity=(1, 1)),
        _p("IPV", "Static IPv4 address", "Adresse IPv4 fixe", "Statische IPv4-Adresse",
           "month", "3.00", "5.00", quantity=(1, 12)),
    )),
    ProductLine("coffee", {"en": "Coffee wholesale", "fr": "Café en gros",
                           "de": "Kaffee-Großhandel"}, (
        _p("ESP", "Espresso beans, dark roast", "Café en grains espresso, torréfié",
           "Espressobohnen, dunkle Röstung", "kg", "14.00", "29.00", pricing="tiered",
           tax_class="reduced", tiers=_tiers((1, "24.00"), (20, "21.50"), (100, "18.90")),
           quantity=(2, 160)),
        _p("FLT", "Filter coffee, ground", "Café moulu pour filtre", "Filterkaffee, gemahlen",
           "kg", "9.00", "19.00", tax_class="reduced", quantity=(2, 60)),
        _p("DEC", "Decaf beans, Swiss water", "Café décaféiné en grains",
           "Entkoffeinierte Bohnen", "kg", "16.00", "31.00", tax_class="reduced",
           quantity=(1, 30)),
        _p("CUP", "Paper cups 8 oz, 1000 pcs", "Gobelets carton 20 cl, 1000 pces",
           "Pappbecher 0,2 l, 1000 Stück", "box", "38.00", "64.00"),
        _p("GRN", "Grinder maintenance visit", "Entretien de moulin", "Wartung Kaffeemühle",
           "pcs", "85.00", "160.00", quantity=(1, 2)),
    )),
    ProductLine("energy", {"en": "Electricity supply", "fr": "Fourniture d'électricité",
                           "de": "Stromversorgung"}, (
        _p("KWD", "Electricity, day rate", "Électricité, heures pleines", "Strom, Tagtarif",
           "kwh", "0.1800", "0.3600", pricing="metered", tax_class="reduced",
           quantity=(120, 9000)),
        _p("KWN", "Electricity, night rate", "Électricité, heures creuses",
           "Strom, Nachttarif", "kwh", "0.1100", "0.2400", pricing="metered",
           tax_class="reduced", quantity=(60, 6000)),
        _p("STC", "Standing charge", "Abonnement", "Grundgebühr", "month", "12.00", "45.00",
           tax_class="reduced", quantity=(1, 3)),
        _p("MTR", "Smart meter rental", "Location compteur", "Zählermiete", "month", "2.50",
           "6.00", quantity=(1, 3)),
    )),
    ProductLine("consulting", {"en": "Consulting services", "fr": "Conseil",
                               "de": "Beratungsleistungen"}, (
        _p("SNR", "Senior consultant", "Consultant senior", "Senior-Berater", "h", "120.00",
           "260.00", quantity=(2, 80)),
        _p("JNR", "Analyst", "Analyste", "Analyst", "h", "60.00", "120.00", quantity=(4, 120)),
        _p("WSH", "Workshop facilitation", "Animation d'atelier", "Workshop-Moderation",
           "day", "900.00", "2400.00", quantity=(1, 5)),
        _p("TRV", "Travel expenses, flat", "Frais de déplacement, forfait",
           "Reisekostenpauschale", "day", "80.00", "240.00", tax_class="zero",
           quantity=(1, 6)),
        _p("RPT", "Written report", "Rapport écrit", "Schriftlicher Bericht", "pcs", "400.00",
           "1800.00", quantity=(1, 2)),
    )),
    ProductLine("hardware", {"en": "Industrial fasteners", "fr": "Visserie industrielle",
                             "de": "Befestigungstechnik"}, (
        _p("M6B", "Hex bolts M6x30, zinc, 100", "Vis hexagonales M6x30, zinc, 100",
           "Sechskantschrauben M6x30, 100", "box", "6.00", "14.00", pricing="tiered",
           tiers=_tiers((1, "11.80"), (25, "9.90"), (100, "8.45")), quantity=(1, 240)),
        _p("M8N", "Hex nuts M8, stainless, 200", "Écrous M8 inox, 200",
           "Sechskantmuttern M8 Edelstahl, 200", "box", "9.00", "22.00", pricing="tiered",
           tiers=_tiers((1, "18.40"), (25, "16.10"), (100, "13.75")), quantity=(1, 180)),
        _p("WSR", "Flat washers 8 mm, 500", "Rondelles plates 8 mm, 500",
           "Unterlegscheiben 8 mm, 500", "box", "4.00", "11.00", quantity=(1, 60)),
        _p("ANC", "Wall anchors 10 mm, 100", "Chevilles 10 mm, 100", "Dübel 10 mm, 100",
           "box", "7.00", "15.00", quantity=(1, 50)),
        _p("THR", "Threaded rod M10, 1 m", "Tige filetée M10, 1 m", "Gewindestange M10, 1 m",
           "pcs", "2.10", "5.40", quantity=(5, 200)),
    )),
    ProductLine("software", {"en": "Software licences", "fr": "Licences logicielles",
                             "de": "Softwarelizenzen"}, (
        _p("LIC", "Team edition, annual", "Édition Équipe, annuelle", "Team-Edition, jährlich",
           "seat", "60.00", "240.00", pricing="tiered",
           tiers=_tiers((1, "199.00"), (25, "179.00"), (100, "149.00")), quantity=(3, 300)),
        _p("ADM", "Admin console add-on", "Module console d'administration",
           "Admin-Konsole Zusatzmodul", "month", "49.00", "149.00", quantity=(1, 12)),
        _p("ONB", "Onboarding session", "Session de prise en main", "Einführungsschulung",
           "h", "95.00", "180.00", quantity=(1, 16)),
        _p("API", "API calls, per 1000", "Appels API, par 1000", "API-Aufrufe, je 1000",
           "pcs", "0.0800", "0.4000", pricing="metered", quantity=(100, 50000)),
        _p("SLA", "Premium SLA", "SLA Premium", "Premium-SLA", "month", "150.00", "600.00",
           quantity=(1, 12)),
    )),
    ProductLine("print", {"en": "Print shop", "fr": "Imprimerie", "de": "Druckerei"}, (
        _p("BCD", "Business cards, 500", "Cartes de visite, 500", "Visitenkarten, 500 Stück",
           "box", "19.00", "45.00", pricing="tiered",
           tiers=_tiers((1, "39.00"), (10, "34.50"), (40, "29.00")), quantity=(1, 60)),
        _p("FLY", "Flyers A5, full colour", "Flyers A5, quadrichromie", "Flyer A5, vierfarbig",
           "pcs", "0.0600", "0.2200", pricing="metered", quantity=(250, 20000)),
        _p("BRO", "Brochures A4, 16 pages", "Brochures A4, 16 pages", "Broschüren A4, 16 Seiten",
           "pcs", "1.20", "3.80", quantity=(50, 2000)),
        _p("BKS", "Printed books, softcover", "Livres imprimés, broché",
           "Gedruckte Bücher, Softcover", "pcs", "4.00", "12.00", tax_class="zero",
           quantity=(20, 800)),
        _p("PST", "Posters A2, matt", "Affiches A2, mat", "Poster A2, matt", "pcs", "3.50",
           "9.00", quantity=(5, 300)),
    )),
)

#: the longest description of any product in any language (archetype layouts must fit it)
LONGEST_DESCRIPTION = max(
    (name for line in PRODUCT_LINES for p in line.products for name in p.names.values()), key=len
)

