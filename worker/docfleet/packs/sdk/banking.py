"""Bank account identifiers that pass their own check rules: IBAN (ISO 13616, mod 97),
the French RIB key inside a French BBAN, the US ABA routing number (3-7-1 weights).

``account_for(rng, locale)`` gives what a bank statement of that locale prints: an IBAN
for a country with IBANs (grouped by four as printed; a Saudi one names its real bank code
and BIC), else the country's domestic routing and account number: the US ABA routing
number, the Australian BSB ``bbs-nnn``, the Canadian transit + institution
``nnnnn-iii``, the Japanese bank + branch code ``bbbb-nnn`` (:func:`domestic_valid` checks
their published structure; only the ABA number has a check digit).
"""

from __future__ import annotations

import hashlib
import random
import string
import unicodedata
from dataclasses import dataclass

from docfleet.packs.sdk.identifiers import sa_iban
from docfleet.packs.sdk.parties import group_iban

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


#: RIB key letters: a letter of a French account number counts as this digit
_RIB_DIGITS = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "12345678912345678923456789")


def with_rib_key(iban: str) -> str:
    """``iban`` (compact) with a valid French RIB key (and so check digits): a French
    IBAN's last two digits recomputed from its bank, branch and account (letters of the
    account as RIB digits); any other IBAN as it is."""
    if not iban.startswith("FR") or len(iban) != 27:
        return iban
    bban = iban[4:]
    bank, branch, account = bban[:5], bban[5:10], bban[10:21].upper().translate(_RIB_DIGITS)
    return make_iban("FR", bban[:21] + rib_key(bank, branch, account))


def rib_valid(iban: str) -> bool:
    """Whether a French IBAN (spaces allowed) carries a valid RIB key."""
    compact = iban.replace(" ", "").upper()
    return with_rib_key(compact) == compact


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


#: Australian BSB bank prefixes (APCA): ANZ, Westpac, CBA, NAB, Westpac/St.George, CBA
AU_BANKS = ("01", "03", "06", "08", "73", "76")
#: Canadian institution numbers (Payments Canada): BMO, Scotiabank, RBC, TD, National
#: Bank, CIBC, Desjardins
CA_BANKS = ("001", "002", "003", "004", "006", "010", "815")
#: Japanese Zengin bank codes → BIC: Mizuho, MUFG, SMBC, Resona, Japan Post Bank
JP_BANKS = {"0001": "MHCBJPJT", "0005": "BOTKJPJT", "0009": "SMBCJPJT", "0010": "DIWAJPJT",
            "9900": "JPPSJPJ1"}
#: BIC → printed name of the real banks whose codes the accounts carry
REAL_BANKS: dict[str, str] = {
    "MHCBJPJT": "みずほ銀行", "BOTKJPJT": "三菱UFJ銀行", "SMBCJPJT": "三井住友銀行",
    "DIWAJPJT": "りそな銀行", "JPPSJPJ1": "ゆうちょ銀行",
    "RJHISARI": "مصرف الراجحي", "NCBKSAJE": "البنك الأهلي السعودي",
    "SABBSARI": "البنك السعودي الأول", "RIBLSARI": "بنك الرياض", "INMASARI": "مصرف الإنماء",
}


def domestic_valid(country: str, routing: str, number: str) -> bool:
    """Whether a domestic ``routing`` + account ``number`` has its country's published
    structure: US ABA 3-7-1 checksum and 4-17 digits; AU BSB ``bbs-nnn`` (known bank,
    state digit 2-7) and 6-9 digits; CA transit ``nnnnn-iii`` (known institution) and
    7-12 digits; JP ``bbbb-nnn`` (known bank) and 7 digits. False for other countries."""
    if not number.isdigit():
        return False
    head, _, tail = routing.partition("-")
    if country == "US":
        return aba_valid(routing) and 4 <= len(number) <= 17
    if country == "AU":
        return (len(head) == len(tail) == 3 and (head + tail).isdigit()
                and head[:2] in AU_BANKS and head[2] in "234567" and 6 <= len(number) <= 9)
    if country == "CA":
        return (len(head) == 5 and head.isdigit() and tail in CA_BANKS
                and 7 <= len(number) <= 12)
    if country == "JP":
        return (head in JP_BANKS and len(tail) == 3 and tail.isdigit()
                and len(number) == 7)
    return False


@dataclass(frozen=True)
class Account:
    """What a statement prints: ``iban`` (grouped) or ``routing`` + ``number``; ``bic``
    when the account's bank is a real one (a Saudi IBAN and a Japanese bank code name
    their bank: ``REAL_BANKS[bic]`` is its printed name)."""

    iban: str | None
    routing: str | None
    number: str
    bic: str | None = None


def account_for(rng: random.Random, locale: str) -> Account:
    """The account a statement of ``locale`` prints, valid by its country's rules."""
    country = locale.rsplit("-", 1)[-1].upper()
    if country == "SA":
        iban, bic = sa_iban(rng)
        return Account(group_iban(iban), None, iban[4:], bic)
    if country in BBAN:
        iban = random_iban(rng, country)
        return Account(group_iban(iban), None, iban[4:])
    digits = lambda n: "".join(str(rng.randrange(10)) for _ in range(n))  # noqa: E731
    if country == "US":
        return Account(None, random_aba(rng), digits(rng.randint(9, 12)))
    if country == "AU":
        bsb = f"{rng.choice(AU_BANKS)}{rng.randint(2, 7)}-{digits(3)}"
        return Account(None, bsb, digits(rng.choice((6, 8, 9))))
    if country == "CA":
        return Account(None, f"{digits(5)}-{rng.choice(CA_BANKS)}", digits(7))
    if country == "JP":
        bank = rng.choice(sorted(JP_BANKS))
        return Account(None, f"{bank}-{digits(3)}", digits(7), JP_BANKS[bank])
    # a country without rules here: a bank-internal branch + account number
    return Account(None, digits(3), digits(7))


#: the letters a BIC's bank code may hold (ISO 9362: A-Z only)
_BIC_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def bic_bank_code(bank: str) -> str:
    """The 4-letter ISO 9362 bank code a BIC built from ``bank``'s printed name carries:
    its first letters transliterated to ASCII A-Z (``Crédit`` → ``CRED``); a name with
    fewer Latin letters (Arabic, Japanese) is topped up with letters drawn from the name's
    digest, so the code is always 4 letters A-Z and the same name always gives the same
    code (no random draw: a caller's stream is not moved)."""
    latin = "".join(c for c in unicodedata.normalize("NFKD", bank.upper())
                    if c in _BIC_LETTERS)[:4]
    digest = hashlib.sha256(bank.encode()).digest()
    return latin + "".join(_BIC_LETTERS[b % 26] for b in digest[:4 - len(latin)])
