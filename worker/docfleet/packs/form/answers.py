"""What people write in a form's boxes: one person per form (name, address, phone,
email) and the other answers, each drawn from the document's random stream as its
question comes, in the locale's own formats (money, dates, phone numbers)."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal
from typing import Any

from docfleet.packs.form.vocabulary import COMMENTS, POOLS
from docfleet.packs.sdk import identifiers
from docfleet.packs.sdk.locales import Jurisdiction
from docfleet.packs.sdk.parties import SA_CITIES, address
from docfleet.packs.sdk.text import digits

MEDICATIONS = ("Metformin 500 mg", "Ramipril 5 mg", "Levothyroxine 50 µg",
               "Ibuprofen 400 mg", "Salbutamol", "Atorvastatin 20 mg", "Omeprazole 20 mg")


class Answers:
    """The answers of one form (see the module docstring)."""

    def __init__(self, rng: random.Random, fake: Any, jur: Jurisdiction,
                 signed: dt.date) -> None:
        self.rng, self.fake, self.jur, self.signed = rng, fake, jur, signed
        self.language = jur.language
        self.given = fake.first_name()
        self.family = fake.last_name()
        state = "NY" if jur.locale == "en-US" else None
        self.address = address(fake, jur, state, rng)
        self.email = fake.free_email()

    def city(self) -> str:
        if self.jur.locale == "ar-SA":
            return self.rng.choice(SA_CITIES)
        return str(self.fake.city())

    def pool(self, name: str) -> str:
        return self.rng.choice(POOLS[self.language][name])

    def name(self) -> str:
        given, family = self.fake.first_name(), self.fake.last_name()
        return f"{family}{given}" if self.language == "ja" else f"{given} {family}"

    def amount(self, low: int, high: int) -> tuple[str, str]:
        places = 0 if self.jur.currency == "JPY" else 2
        scale = 150 if self.jur.currency == "JPY" else 1
        value = Decimal(self.rng.randint(low * scale, high * scale))
        if places and self.rng.random() < 0.3:
            value += Decimal(self.rng.randrange(100)) / 100
        value = value.quantize(Decimal(1) if places == 0 else Decimal("0.01"))
        return format(value, "f"), self.jur.money(value)

    def date(self, key: str) -> dt.date:
        rng = self.rng
        if key == "birth_date":
            return dt.date(rng.randint(1945, 2005), rng.randint(1, 12), rng.randint(1, 28))
        if key == "incident_date":
            return self.signed - dt.timedelta(days=rng.randint(1, 60))
        return self.signed + dt.timedelta(days=rng.randint(7, 60))  # start_date

    def comment(self, key: str) -> str:
        if key == "medications":
            return ", ".join(self.rng.sample(MEDICATIONS, self.rng.randint(1, 3)))
        pool = COMMENTS[self.language]
        first = self.rng.randrange(len(pool))
        text = pool[first]
        if self.rng.random() < 0.4:
            text += " " + pool[(first + 1 + self.rng.randrange(len(pool) - 1)) % len(pool)]
        return text

    def value(self, key: str) -> tuple[str | None, str]:
        """(canonical value, printed text) of question ``key``'s answer (``None``: the
        value is the text)."""
        rng, jur, language = self.rng, self.jur, self.language
        if key == "given_name":
            return None, self.given
        if key == "family_name":
            return None, self.family
        if key == "signature":
            name = f"{self.family}{self.given}" if language == "ja" \
                else f"{self.given[0]}. {self.family}" if rng.random() < 0.3 \
                else f"{self.given} {self.family}"
            return None, name
        if key in ("birth_place", "incident_place", "signed_place", "city"):
            return None, self.city()
        if key in ("nationality", "origin"):
            return None, self.pool("country")
        if key == "street":
            return None, self.address[1 if language == "ja" else 0]
        if key == "postcode":
            if jur.locale == "ja-JP":
                return None, str(self.fake.zipcode())
            if jur.locale == "ar-SA":
                return None, str(rng.randint(11000, 34999))
            return None, str(self.fake.postcode())
        if key in ("phone", "emergency_phone"):
            return None, identifiers.phone(rng, jur.locale)
        if key == "email":
            return None, self.email
        if key in ("occupation", "position"):
            return None, self.pool("occupation")
        if key == "department":
            return None, self.pool("department")
        if key == "goods":
            return None, self.pool("goods")
        if key in ("employer", "company_name", "insurer"):
            return None, identifiers.company_name(rng, self.fake.last_name(), jur.locale)
        if key in ("emergency_contact", "consignee", "doctor"):
            return None, self.name()
        if key == "id_number":
            letter = rng.choice("ACKLMPTX")
            return None, f"{letter}{digits(rng, 8)}" if language != "ar" \
                else f"1{digits(rng, 9)}"
        if key == "customer_number":
            return None, f"{digits(rng, 3)}-{digits(rng, 5)}"
        if key == "policy_number":
            return None, f"{rng.choice(('P', 'HR', 'KFZ', 'CL'))}{digits(rng, 7)}"
        if key == "insurance_number":
            return None, digits(rng, 10)
        if key == "quantity":
            n = rng.randint(1, 12)
            return str(n), str(n)
        if key in ("monthly_income",):
            return self.amount(900, 6500)
        if key in ("estimated_amount", "declared_value"):
            return self.amount(20, 4000)
        if key == "signed_date":
            return self.signed.isoformat(), jur.date(self.signed)
        raise KeyError(f"no answer for question {key!r}")
