"""Parties and addresses: who issues and receives a document, drawn per locale.

:func:`seeded_faker` is the per-document Faker (one per locale, reseeded from the
document's own ``random.Random``, so a document's names never depend on its neighbours);
:func:`address` prints an address the way the locale does (a Japanese postcode block, a
Saudi district line, a US ``City, ST ZIP``); :func:`party` draws a company or a person
with a name, address, tax number valid by its country's rules
(:mod:`.identifiers`), phone, e-mail and, for a seller, bank details.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from itertools import accumulate
from typing import TYPE_CHECKING

from docfleet.packs.sdk import identifiers
from docfleet.packs.sdk.locales import US_STATE_RATES, Jurisdiction
from docfleet.packs.sdk.text import digits, plain

if TYPE_CHECKING:
    from faker import Faker

SA_STREETS = ("طريق الملك فهد", "شارع العليا", "طريق الملك عبدالعزيز", "شارع التحلية",
              "طريق الأمير سلطان", "شارع الأمير محمد بن عبدالعزيز", "طريق الدمام")
SA_DISTRICTS = ("حي العليا", "حي الملز", "حي الروضة", "حي النخيل", "حي السليمانية",
                "حي الشاطئ", "حي الفيصلية")
SA_CITIES = ("الرياض", "جدة", "الدمام", "مكة المكرمة", "الخبر", "المدينة المنورة")


@dataclass(frozen=True)
class Party:
    name: str
    address: tuple[str, ...]  # printed lines
    tax_id: str | None
    phone: str
    email: str
    iban: str | None = None
    bic: str | None = None
    account: str | None = None  # en-US: "Routing 011152442 · Account 92668587840057"


@cache
def faker(locale: str) -> Faker:
    """One Faker per Faker locale (``en_US``). Arabic names lose their harakat (vowel
    marks: تمّام → تمام), as business documents print them; the name lists keep their
    length and order, so every draw picks the same name."""
    from faker import Faker

    _scan_faker_locales_once()
    fake = Faker(locale)
    if locale.startswith("ar"):
        for provider in fake.providers:
            for attr in ("first_names", "first_names_male", "first_names_female",
                         "last_names", "prefixes_male", "prefixes_female"):
                names = getattr(provider, attr, None)
                if isinstance(names, tuple | list):
                    setattr(provider, attr, tuple(plain(n) for n in names))
    return fake


def _scan_faker_locales_once() -> None:
    """Make Faker list each provider's locale packages once per process, not once per
    locale. ``Faker(locale)`` scans every localized provider's directory (``list_module``:
    a ``listdir`` per locale package, ~800 a locale, ~15 ms of CPU), and a task that
    draws from ten locales did it ten times over for the same lists. The memo keeps what
    the scan returned (a process's installed Faker does not change), so every Faker
    is built from the same providers as before. Idempotent; a Faker without that
    module-level function is left as it is."""
    import faker.factory

    scan = getattr(faker.factory, "list_module", None)
    if callable(scan) and not hasattr(scan, "cache_info"):
        faker.factory.list_module = cache(scan)


def seeded_faker(rng: random.Random, jur: Jurisdiction) -> Faker:
    """The locale's Faker, seeded by the next 64 bits of ``rng`` (one draw of ``rng``)."""
    fake = faker(jur.faker_locale)
    fake.seed_instance(rng.getrandbits(64))
    return fake


def address(fake: Faker, jur: Jurisdiction, state: str | None,
            rng: random.Random) -> tuple[str, ...]:
    """An address's printed lines in ``jur``'s format; ``state``: a US state code (en-US
    only, where it picks the ZIP code)."""
    if jur.locale == "ja-JP":
        block = f"{fake.prefecture()}{fake.city()}{fake.town()}{fake.chome()}{fake.ban()}" \
                f"{fake.gou()}"
        building = f"{fake.building_name()}{rng.randint(101, 999)}"
        return (f"〒{fake.zipcode()}", block, building)
    if jur.locale == "ar-SA":
        return (f"{rng.randint(1000, 9999)} {rng.choice(SA_STREETS)}، "
                f"{rng.choice(SA_DISTRICTS)}",
                f"{rng.choice(SA_CITIES)} {rng.randint(11000, 34999)}")
    street = tuple(s.strip() for s in fake.street_address().split("\n") if s.strip())
    if jur.locale in ("en-AU", "en-CA"):
        region = fake.state_abbr() if jur.locale == "en-AU" else fake.province_abbr()
        return (*street, f"{fake.city()} {region} {fake.postcode()}")
    if jur.locale == "en-US":
        assert state is not None
        return (*street, f"{fake.city()}, {state} {fake.zipcode_in_state(state)}")
    if jur.locale == "en-GB":
        return (*street, fake.city(), fake.postcode())
    return (*street, f"{fake.postcode()} {fake.city()}")


def party(rng: random.Random, fake: Faker, jur: Jurisdiction, *, seller: bool,
          state: str | None) -> tuple[Party, str | None]:
    """A party and its second registration number (French SIRET) if it has one. A seller
    is always a company with a tax number and bank details; a buyer is a company (80 %)
    or a person, with a tax number outside en-US/en-CA/en-AU."""
    company = seller or rng.random() < 0.8
    name = identifiers.company_name(rng, fake.last_name(), jur.locale) if company \
        else fake.name()
    lines = address(fake, jur, state, rng)
    tax_id = registration = None
    if company and (seller or jur.locale not in ("en-US", "en-CA", "en-AU")):
        tax_id, registration = identifiers.tax_id(rng, jur.locale)
    phone = identifiers.phone(rng, jur.locale)
    email = fake.company_email() if company else fake.free_email()
    iban = bic = account = None
    if seller:
        if jur.locale == "en-US":
            account = f"ABA {fake.aba()} · Acct {digits(rng, 10)}"
        elif jur.locale == "en-AU":
            account = f"BSB {digits(rng, 3)}-{digits(rng, 3)} · Acct {digits(rng, 8)}"
        elif jur.locale == "en-CA":
            account = f"Transit {digits(rng, 5)} · Inst 00{rng.randint(1, 9)} · " \
                      f"Acct {digits(rng, 7)}"
        elif jur.locale == "ja-JP":
            bank = rng.choice(("三菱UFJ銀行", "みずほ銀行", "三井住友銀行", "りそな銀行"))
            account = f"{bank} {rng.choice(('本店', '新宿支店', '梅田支店'))} " \
                      f"普通 {digits(rng, 7)}"
        elif jur.locale == "ar-SA":
            number, bic = identifiers.sa_iban(rng)
            iban = group_iban(number)
        else:
            iban = group_iban(fake.iban())
            bic = fake.swift(length=8 if rng.random() < 0.5 else 11)
    return Party(name, lines, tax_id, phone, email, iban, bic, account), registration


def group_iban(iban: str) -> str:
    """An IBAN printed in groups of four."""
    return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))


#: parties per run, locale and role, drawn with weight ``1 / (k + 1) ** POOL_SKEW``: a few
#: issue many documents, the tail one each (real sellers, merchants and buyers repeat)
POOL_SIZE = 500
POOL_SKEW = 0.8
_POOL_WEIGHTS = list(accumulate(1 / (k + 1) ** POOL_SKEW for k in range(POOL_SIZE)))


def pooled_party(run_id: str, jur: Jurisdiction, index: int, role: str = "seller",
                 state: str | None = None) -> tuple[Party, str | None, str | None]:
    """Document ``index``'s ``role`` party from the run's pool for the locale (party *k*
    is the same company, tax number and bank account on every document it is on):
    (party, second registration number, US state: ``state`` if given, else drawn)."""
    k = random.Random(f"{run_id}:{index}:{role}").choices(range(POOL_SIZE),
                                                          cum_weights=_POOL_WEIGHTS)[0]
    srng = random.Random(f"{run_id}:{jur.locale}:{role}:{k}")
    fake = seeded_faker(srng, jur)
    if jur.locale == "en-US" and state is None:
        state = srng.choice(sorted(US_STATE_RATES))
    chosen, registration = party(srng, fake, jur, seller=True, state=state)
    return chosen, registration, state
