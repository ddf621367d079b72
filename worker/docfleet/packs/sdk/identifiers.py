"""Identifiers valid by their own rules, printed the way each country prints them.

Check digits come from python-stdnum (the well-kept reference implementation of these
schemes); this module only draws the free digits and lays the number out. Every
generator is a pure function of its ``random.Random``: the same draws give the same
number. ``tax_id(rng, locale)`` is the seller's/buyer's tax number as printed on an
invoice; ``registration(rng, locale)`` is a second number some countries print (the
French SIRET, the Swiss UID register entry); ``phone(rng, locale)`` a national phone
number; ``company_name(rng, fake, locale)`` a legal-entity name.
"""

from __future__ import annotations

import random

from stdnum import luhn
from stdnum.at import uid as at_uid
from stdnum.au import abn as au_abn
from stdnum.ch import uid as ch_uid
from stdnum.iso7064 import mod_11_10
from stdnum.jp import cn as jp_cn
from stdnum.us import ein as us_ein


def _digits(rng: random.Random, n: int, first_nonzero: bool = False) -> str:
    head = str(rng.randint(1, 9)) if first_nonzero else str(rng.randrange(10))
    return head + "".join(str(rng.randrange(10)) for _ in range(n - 1))


def de_vat(rng: random.Random) -> str:
    """German USt-IdNr: ``DE`` + 8 digits + ISO 7064 MOD 11,10 check digit."""
    body = _digits(rng, 8, first_nonzero=True)
    return f"DE{body}{mod_11_10.calc_check_digit(body)}"


def gb_vat(rng: random.Random) -> str:
    """UK VAT number ``GB 123 4567 89``: weighted sum (8..2) of the first 7 digits plus the
    2-digit check is 0 mod 97, or 0 mod 97 after adding 55 (the "9755" series, issued for
    numbers from 100 upward)."""
    body = _digits(rng, 7, first_nonzero=True)
    total = sum(w * int(d) for w, d in zip((8, 7, 6, 5, 4, 3, 2), body, strict=True))
    check = (-total - 55) % 97 if rng.random() < 0.5 else (-total) % 97
    n = f"{body}{check:02d}"
    return f"GB {n[:3]} {n[3:7]} {n[7:]}"


def fr_siren(rng: random.Random) -> str:
    """A Luhn-valid 9-digit SIREN."""
    body = _digits(rng, 8, first_nonzero=True)
    return body + luhn.calc_check_digit(body)


def fr_siret(rng: random.Random, siren: str) -> str:
    """SIRET = SIREN + 5-digit establishment number (NIC), Luhn-valid over 14 digits,
    printed ``123 456 789 00012``."""
    nic = f"{rng.randint(1, 99):04d}"
    number = siren + nic + luhn.calc_check_digit(siren + nic)
    return f"{number[:3]} {number[3:6]} {number[6:9]} {number[9:]}"


def fr_tva(siren: str) -> str:
    """French TVA intracommunautaire: ``FR`` + key + SIREN with key =
    (12 + 3 x (SIREN mod 97)) mod 97, printed ``FR 12 345678901``."""
    key = (12 + 3 * (int(siren) % 97)) % 97
    return f"FR{key:02d} {siren[:3]} {siren[3:6]} {siren[6:]}"


def us_ein_number(rng: random.Random) -> str:
    """US EIN ``NN-NNNNNNN`` with a prefix the IRS assigns (stdnum's campus table)."""
    while True:
        prefix = f"{rng.randint(1, 99):02d}"
        number = f"{prefix}-{_digits(rng, 7)}"
        if us_ein.is_valid(number):
            return number


def at_uid_number(rng: random.Random) -> str:
    """Austrian UID ``ATU12345678``: 7 digits + check digit."""
    body = _digits(rng, 7, first_nonzero=True)
    return f"ATU{body}{at_uid.calc_check_digit('U' + body)}"


def ch_uid_number(rng: random.Random) -> str:
    """Swiss UID ``CHE-123.456.789`` (mod 11 check; a body whose check would be 10 is
    never issued, so it is drawn again)."""
    while True:
        body = _digits(rng, 8, first_nonzero=True)
        check = ch_uid.calc_check_digit(body)
        if check != "10":
            n = body + check
            return f"CHE-{n[:3]}.{n[3:6]}.{n[6:]}"


def au_abn_number(rng: random.Random) -> str:
    """Australian Business Number ``51 824 753 556`` (mod 89 check digits)."""
    body = _digits(rng, 9, first_nonzero=True)
    n = au_abn.calc_check_digits(body) + body
    return f"{n[:2]} {n[2:5]} {n[5:8]} {n[8:]}"


def ca_bn(rng: random.Random) -> str:
    """Canadian GST/HST number: a Luhn-valid 9-digit business number + ``RT0001``."""
    body = _digits(rng, 8, first_nonzero=True)
    return f"{body}{luhn.calc_check_digit(body)} RT0001"


def jp_registration(rng: random.Random) -> str:
    """Japanese qualified-invoice registration number: ``T`` + the 13-digit corporate
    number (leading check digit over the other 12)."""
    body = _digits(rng, 12, first_nonzero=True)
    return f"T{jp_cn.calc_check_digit(body)}{body}"


def sa_vat(rng: random.Random) -> str:
    """Saudi VAT registration number: 15 digits, beginning and ending with 3 (ZATCA)."""
    return f"3{_digits(rng, 13)}3"


def tax_id(rng: random.Random, locale: str) -> tuple[str, str | None]:
    """(tax number as printed, second registration number or None) for ``locale``."""
    if locale == "en-US":
        return us_ein_number(rng), None
    if locale == "en-GB":
        return gb_vat(rng), None
    if locale == "fr-FR":
        siren = fr_siren(rng)
        return fr_tva(siren), fr_siret(rng, siren)
    if locale == "de-DE":
        return de_vat(rng), None
    if locale == "de-AT":
        return at_uid_number(rng), None
    if locale == "fr-CH":
        uid = ch_uid_number(rng)
        return f"{uid} TVA", None
    if locale == "en-AU":
        return au_abn_number(rng), None
    if locale == "en-CA":
        return ca_bn(rng), None
    if locale == "ja-JP":
        return jp_registration(rng), None
    if locale == "ar-SA":
        return sa_vat(rng), None
    raise KeyError(locale)


# -- phone numbers: national formats -------------------------------------------------------

def _us_like(rng: random.Random, areas: tuple[str, ...]) -> str:
    return f"({rng.choice(areas)}) {rng.randint(200, 999)}-{_digits(rng, 4)}"


def phone(rng: random.Random, locale: str) -> str:
    """A phone number in the national format of ``locale`` (area codes of real cities)."""
    if locale == "en-US":
        return _us_like(rng, ("212", "312", "415", "617", "713", "206", "303", "305"))
    if locale == "en-CA":
        return _us_like(rng, ("416", "514", "604", "403", "613", "905"))
    if locale == "en-GB":
        style = rng.randrange(3)
        if style == 0:
            return f"020 {rng.randint(3, 8)}{_digits(rng, 3)} {_digits(rng, 4)}"
        if style == 1:
            return f"0{rng.choice(('161', '113', '121', '131', '141'))} {_digits(rng, 3)} " \
                   f"{_digits(rng, 4)}"
        return f"07{_digits(rng, 3)} {_digits(rng, 6)}"
    if locale == "fr-FR":
        return f"0{rng.randint(1, 5)} " + " ".join(_digits(rng, 2) for _ in range(4))
    if locale == "fr-CH":
        return f"0{rng.choice(('21', '22', '24', '26', '27', '32'))} {_digits(rng, 3)} " \
               f"{_digits(rng, 2)} {_digits(rng, 2)}"
    if locale == "de-DE":
        area = rng.choice(("030", "040", "089", "069", "0221", "0711", "0341"))
        return f"{area} {_digits(rng, 8 - len(area) + 3, first_nonzero=True)}"
    if locale == "de-AT":
        area = rng.choice(("1", "316", "662", "732", "512"))
        return f"+43 {area} {_digits(rng, 9 - len(area), first_nonzero=True)}"
    if locale == "en-AU":
        return f"({rng.choice(('02', '03', '07', '08'))}) {_digits(rng, 4, True)} " \
               f"{_digits(rng, 4)}"
    if locale == "ja-JP":
        style = rng.randrange(3)
        if style == 0:
            return f"03-{_digits(rng, 4, True)}-{_digits(rng, 4)}"
        if style == 1:
            return f"06-{_digits(rng, 4, True)}-{_digits(rng, 4)}"
        return f"0{rng.choice(('45', '52', '75', '92'))}-{_digits(rng, 3, True)}-" \
               f"{_digits(rng, 4)}"
    if locale == "ar-SA":
        return f"0{rng.choice(('11', '12', '13', '14', '17'))} {_digits(rng, 3, True)} " \
               f"{_digits(rng, 4)}"
    raise KeyError(locale)


# -- company names: legal entities per locale ---------------------------------------------

LEGAL_FORMS: dict[str, tuple[str, ...]] = {
    "en-US": ("Inc.", "LLC", "Corp.", "Co."),
    "en-CA": ("Inc.", "Ltd.", "Corp."),
    "en-GB": ("Ltd", "Limited", "PLC", "LLP"),
    "en-AU": ("Pty Ltd", "Pty. Limited"),
    "fr-FR": ("SARL", "SAS", "SA", "EURL"),
    "fr-CH": ("Sàrl", "SA"),
    "de-DE": ("GmbH", "AG", "GmbH & Co. KG", "UG (haftungsbeschränkt)", "e.K."),
    "de-AT": ("GmbH", "AG", "KG", "OG"),
    "ja-JP": ("株式会社", "合同会社", "有限会社"),
    "ar-SA": ("المحدودة", "للتجارة", "القابضة"),
}

#: words a company is named after besides a family name, per language
TRADES: dict[str, tuple[str, ...]] = {
    "en": ("Supply", "Trading", "Industries", "Solutions", "Partners", "Group", "Works",
           "Systems", "Services"),
    "fr": ("Distribution", "Services", "Industries", "Conseil", "Fournitures", "Négoce"),
    "de": ("Handel", "Technik", "Vertrieb", "Service", "Werke", "Systeme"),
    "ja": ("商事", "産業", "工業", "物産", "システム", "サービス", "技研"),
    "ar": ("التجارية", "للمقاولات", "للتقنية", "الصناعية", "للخدمات"),
}


def company_name(rng: random.Random, surname: str, locale: str) -> str:
    """A legal-entity name: a family name (from Faker, drawn by the caller), often a trade
    word, and a legal form of ``locale`` (``Müller Technik GmbH``, ``株式会社佐藤商事``,
    ``شركة الراشد التجارية المحدودة``)."""
    language = locale.split("-")[0]
    form = rng.choice(LEGAL_FORMS[locale])
    trade = rng.choice(TRADES[language]) if rng.random() < 0.7 else ""
    if language == "ja":
        core = f"{surname}{trade or '商店'}"
        return f"{form}{core}" if rng.random() < 0.6 else f"{core}{form}"
    if language == "ar":
        return f"شركة {surname} {trade}" if trade else f"{surname} {form}"
    if language == "fr" and rng.random() < 0.3:
        return f"{form} {surname} {trade}".strip()
    return " ".join(x for x in (surname, trade, form) if x)


def sa_iban(rng: random.Random) -> tuple[str, str]:
    """(Saudi IBAN ``SA.. .... ...`` with valid ISO 13616 check digits, the bank's BIC)."""
    from stdnum import iban

    bank, bic = rng.choice((("80", "RJHISARI"), ("10", "NCBKSAJE"), ("45", "SABBSARI"),
                            ("20", "RIBLSARI"), ("05", "INMASARI")))
    bban = bank + _digits(rng, 18)
    number = f"SA{iban.calc_check_digits('SA00' + bban)}{bban}"
    return number, bic
