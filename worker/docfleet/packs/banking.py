"""Bank account identifiers that pass their own check rules: IBAN (ISO 13616, mod 97),
the French RIB key inside a French BBAN, the US ABA routing number (3-7-1 weights).

``account_for(rng, locale)`` gives what a bank statement of that locale prints: an IBAN
for a country with IBANs (grouped by four as printed), else a domestic routing and
account number.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

#: country → BBAN pattern: ``n`` digit, ``a`` upper-case letter (after the check digits)
BBAN: dict[str, str] = {
    "GB": "aaaa" + "n" * 14,  # bank code, sort code, account
    "DE": "n" * 18,  # Bankleitzahl (8), account (10)
    "FR": "n" * 23,  # bank (5), branch (5), account (11), RIB key (2)
    "SA": "n" * 20,
    "ES": "n" * 20,
    "IT": "a" + "n" * 22,
    "NL": "aaaa" + "n" * 10,
    "AT": "n" * 16,
    "BE": "n" * 12,
    "CH": "n" * 17,
    "PL": "n" * 24,
    "PT": "n" * 21,
    "AE": "n" * 19,
}


def _numeric(text: str) -> int:
    return int("".join(str(int(ch, 36)) for ch in text))


def iban_valid(iban: str) -> bool:
    """Whether ``iban`` (spaces allowed) passes the ISO 13616 mod-97 check."""
    compact = iban.replace(" ", "").upper()
    if len(compact) < 5 or not compact.isalnum():
        return False
    return _numeric(compact[4:] + compact[:4]) % 97 == 1


def rib_key(bank: str, branch: str, account: str) -> str:
    """The French RIB key of a numeric bank/branch/account triple."""
    return f"{97 - (89 * int(bank) + 15 * int(branch) + 3 * int(account)) % 97:02d}"


def make_iban(country: str, bban: str) -> str:
    check = 98 - _numeric(bban + country + "00") % 97
    return f"{country}{check:02d}{bban}"


def random_iban(rng: random.Random, country: str) -> str:
    pattern = BBAN[country]
    bban = "".join(rng.choice(string.ascii_uppercase) if c == "a" else str(rng.randrange(10))
                   for c in pattern)
    if country == "FR":
        bank, branch, account = bban[:5], bban[5:10], bban[10:21]
        bban = bank + branch + account + rib_key(bank, branch, account)
    return make_iban(country, bban)


def group(iban: str) -> str:
    return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))


def aba_valid(routing: str) -> bool:
    """The ABA 3-7-1 checksum of a 9-digit routing number."""
    if len(routing) != 9 or not routing.isdigit():
        return False
    d = [int(c) for c in routing]
    return sum(w * x for w, x in zip((3, 7, 1) * 3, d, strict=True)) % 10 == 0


def random_aba(rng: random.Random) -> str:
    head = f"{rng.choice((0, 1, 2, 3, 6, 7, 8)) * 10 + rng.randrange(1, 10):02d}"
    body = head + "".join(str(rng.randrange(10)) for _ in range(6))
    d = [int(c) for c in body]
    partial = sum(w * x for w, x in zip((3, 7, 1, 3, 7, 1, 3, 7), d, strict=True))
    return body + str((10 - partial % 10) % 10)


@dataclass(frozen=True)
class Account:
    """What a statement prints: ``iban`` (grouped) or ``routing`` + ``number``."""

    iban: str | None
    routing: str | None
    number: str


def account_for(rng: random.Random, locale: str) -> Account:
    country = locale.rsplit("-", 1)[-1].upper()
    if country in BBAN:
        iban = random_iban(rng, country)
        return Account(group(iban), None, iban[4:])
    if country == "US":
        return Account(None, random_aba(rng), "".join(str(rng.randrange(10))
                                                      for _ in range(rng.randint(9, 12))))
    # a domestic number (e.g. a Japanese branch + account): bank-internal, no check rule
    return Account(None, f"{rng.randrange(1000):03d}", f"{rng.randrange(10**7):07d}")
