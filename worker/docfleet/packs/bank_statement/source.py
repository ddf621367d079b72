"""The bank-statement :class:`DocumentSource`: ``generate(run_id, index)`` →
:class:`BankStatement`, every draw from ``document_rng(run_id, index)`` in a fixed order:
one calendar month of an individual's current account (salary, rent, card payments,
direct debits, transfers, cash), an account number valid for the locale."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

from docfleet.core.seeding import document_rng
from docfleet.packs.bank_statement.records import BankStatement, Transaction, running
from docfleet.packs.sdk.banking import REAL_BANKS, account_for, bic_bank_code
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.money import MINOR_UNITS, round_money
from docfleet.packs.sdk.options import PackOptions, kinds
from docfleet.packs.sdk.parties import address, seeded_faker
from docfleet.packs.sdk.telemetry import traced
from docfleet.packs.sdk.text import arabic_company, digits, fit, fit_lines, fit_whole

FIRST_MONTH = dt.date(2023, 1, 1)
MONTHS = 36
BANKS = {
    "en": ("Northgate Bank", "Albion Savings", "First Harbor Bank", "Crown & Mercer Bank"),
    "fr": ("Banque du Rhône", "Crédit Atlantique", "Banque Lafayette", "Caisse Solidaire"),
    "de": ("Rheinische Bank", "Sparkasse Nordheim", "Volksbank Mittelland", "Hansa Bank"),
}
#: kind → (words per language, amount range, sign)
KINDS: dict[str, tuple[dict[str, str], tuple[int, int], int]] = {
    "card": ({"en": "Card payment", "fr": "Paiement CB", "de": "Kartenzahlung",
              "ja": "カード利用", "ar": "دفع بالبطاقة"},
             (3, 180), -1),
    "debit": ({"en": "Direct debit", "fr": "Prélèvement", "de": "Lastschrift",
               "ja": "口座振替", "ar": "خصم مباشر"},
              (15, 160), -1),
    "transfer_out": ({"en": "Transfer to", "fr": "Virement à", "de": "Überweisung an",
                      "ja": "振込", "ar": "تحويل إلى"},
                     (20, 900), -1),
    "transfer_in": ({"en": "Transfer from", "fr": "Virement de", "de": "Gutschrift von",
                     "ja": "振込入金", "ar": "تحويل من"},
                    (20, 700), 1),
    "cash": ({"en": "Cash withdrawal", "fr": "Retrait DAB", "de": "Bargeldauszahlung",
              "ja": "ATM出金", "ar": "سحب نقدي"},
             (20, 300), -1),
    "fee": ({"en": "Account fee", "fr": "Frais de tenue", "de": "Kontoführung",
             "ja": "口座管理手数料", "ar": "رسوم الحساب"}, (2, 12), -1),
}
SALARY = {"en": "Salary", "fr": "Salaire", "de": "Gehalt", "ja": "給与", "ar": "راتب"}
RENT = {"en": "Standing order rent", "fr": "Loyer virement perm.", "de": "Dauerauftrag Miete",
        "ja": "家賃 自動送金", "ar": "إيجار أمر دائم"}


#: content 3: the templates with a value-date column, and the share of banks using it
VALUE_DATE_ARCHETYPES = ("ledger", "private")
VALUE_DATE_SHARE = 0.55
#: content 4: fewer of those banks print value dates, and only some banks print references
#: at all (most put nothing but the description on a line)
VALUE_DATE_SHARE_V4 = 0.36
REFERENCE_SHARE_V4 = 0.26
#: content 3: the chance a line of each kind prints no reference (card, cash and fee lines
#: usually carry none; direct debits, transfers and standing orders mostly do)
NO_REFERENCE = {"card": 0.6, "cash": 0.85, "fee": 0.75, "debit": 0.2, "transfer_out": 0.1,
                "transfer_in": 0.1, "salary": 0.05, "rent": 0.05}


def _bic(rng: random.Random, bank: str, country: str, content: int) -> str:
    """A BIC for a bank without a real one; from content 3 its bank code is ASCII A-Z
    (issue 29: ``CRÉDFRBGXXX``, Arabic letters), before it the letters printed then."""
    letters = (bic_bank_code(bank) if content >= 3 else
               "".join(c for c in bank.upper() if c.isalpha())[:4].ljust(4, "X"))
    return f"{letters}{country}{rng.choice('ABCDEFGHJKLMNPQRSTUVWXYZ23456789')}" \
           f"{rng.choice('ABCDEFGHJKLMNPQRSTUVWXYZ23456789')}" + rng.choice(("", "XXX"))


class BankStatementSource:
    """Deterministic statements for one run's options."""

    def __init__(self, options: PackOptions) -> None:
        self.options = options

    @traced("docfleet.render.record", lambda self, run_id, index: {
        "docfleet.document.index": index})
    def generate(self, run_id: str, index: int) -> BankStatement:
        rng = document_rng(run_id, index)
        opts = self.options
        locale, archetype, condition = kinds(rng, index, opts)
        jur = JURISDICTIONS[locale]
        lang = jur.language
        cur = jur.currency
        scale = Decimal(150) if MINOR_UNITS.get(cur, 2) == 0 else Decimal(1)
        fake = seeded_faker(rng, jur)
        state = "NY" if locale == "en-US" else None
        bank = rng.choice(BANKS.get(lang, BANKS["en"]))
        cut = fit_whole if opts.content >= 4 else fit  # 4: never end a cut on a bound word
        bank_address = fit_lines(address(fake, jur, state, rng), 40) if opts.content >= 4 \
            else tuple(fit(a, 40) for a in address(fake, jur, state, rng))
        holder = fit(fake.name(), 36)
        holder_address = fit_lines(address(fake, jur, state, rng), 40) \
            if opts.content >= 4 else tuple(fit(a, 40) for a in address(fake, jur, state, rng))
        account = account_for(rng, locale)
        if account.bic in REAL_BANKS:  # the bank the account number names
            bank = REAL_BANKS[account.bic]
        month = rng.randrange(MONTHS)
        start = dt.date(FIRST_MONTH.year + month // 12, month % 12 + 1, 1)
        end = (start.replace(day=28) + dt.timedelta(days=4)).replace(day=1) \
            - dt.timedelta(days=1)
        count = rng.randint(*opts.lines) if opts.lines else (
            rng.randint(6, 28) if rng.random() < 0.8 else rng.randint(40, 90))
        employer_name = fake.company()
        employer = fit(employer_name, 24)
        company = (lambda c: arabic_company(c)) if opts.content >= 4 and lang == "ar" \
            else (lambda c: c)  # 4: Faker's ar-SA companies mix in English words
        payer = company(employer_name) if opts.content >= 4 else employer
        drafts: list[tuple[dt.date, str, Decimal]] = []
        kinds_of: list[str] = []  # each draft's kind (content 3: which lines print a ref)
        q = lambda v: round_money(v, cur)  # noqa: E731
        for k in range(count):
            day = start + dt.timedelta(days=rng.randrange((end - start).days + 1))
            if k == 0:
                kind = "salary"
                text, amount = f"{SALARY.get(lang, SALARY['en'])} {payer}", \
                    Decimal(rng.randint(180000, 520000)) / 100
            elif k == 1 and count > 4:
                kind = "rent"
                text, amount = RENT.get(lang, RENT["en"]), -Decimal(rng.randint(500, 1800))
            else:
                kind = rng.choices(list(KINDS), (10, 4, 2, 2, 2, 1))[0]
                words, (lo, hi), sign = KINDS[kind]
                word = words.get(lang, words["en"])
                if kind == "cash":
                    text, amount = word, Decimal(rng.randint(lo // 10, hi // 10) * 10)
                elif kind in ("transfer_out", "transfer_in"):
                    text = f"{word} {fake.name()}"
                    amount = Decimal(rng.randint(lo * 100, hi * 100)) / 100
                elif kind == "fee":
                    text, amount = word, Decimal(rng.randint(lo * 100, hi * 100)) / 100
                else:
                    text = f"{word} {company(fake.company())}"
                    amount = Decimal(rng.randint(lo * 100, hi * 100)) / 100
                amount *= sign
            drafts.append((day, cut(text, 32), q(amount * scale)))
            kinds_of.append(kind)
        order = sorted(range(len(drafts)), key=lambda i: drafts[i][0])  # stable: as before
        drafts, kinds_of = [drafts[i] for i in order], [kinds_of[i] for i in order]
        opening = q(Decimal(rng.randint(-50000, 900000)) / 100 * scale)
        balances = running(opening, [d[2] for d in drafts])
        txs = []
        # content 3: a stream of its own (the main one is not moved) decides what prints
        side = random.Random(f"bank_statement-v3:{run_id}:{index}") \
            if opts.content >= 3 else None
        share = VALUE_DATE_SHARE if opts.content < 4 else VALUE_DATE_SHARE_V4
        values = side is None or (archetype in VALUE_DATE_ARCHETYPES
                                  and side.random() < share)
        # content 4: whether this bank prints references at all, from a stream of its own
        references = opts.content < 4 or random.Random(
            f"bank_statement-v4:{run_id}:{index}").random() < REFERENCE_SHARE_V4
        for n, ((day, text, amount), balance) in enumerate(zip(drafts, balances, strict=True),
                                                           start=1):
            value = day + dt.timedelta(days=rng.choice((0, 0, 0, 1, 2)))
            ref = rng.choice((f"REF {digits(rng, 10)}", f"{digits(rng, 6)}-{digits(rng, 4)}",
                              f"E2E{digits(rng, 12)}"))
            printed_ref = (side is None or side.random() >= NO_REFERENCE[kinds_of[n - 1]]) \
                and references
            txs.append(Transaction(n, day, value if values else None, text,
                                   ref if printed_ref else None, amount, balance))
        credits = sum((t.amount for t in txs if t.amount > 0), Decimal(0))
        debits = -sum((t.amount for t in txs if t.amount < 0), Decimal(0))
        return BankStatement(
            document=index, statement_number=f"{end.year}/{end.month:02d}-{rng.randint(1, 99)}",
            archetype=archetype, locale=locale, condition=condition, format=opts.format,
            currency=cur, issue_date=end + dt.timedelta(days=rng.randint(1, 4)),
            period_start=start, period_end=end, bank_name=bank, bank_address=bank_address,
            bic=account.bic or _bic(rng, bank, locale.rsplit("-", 1)[-1].upper(),
                                          opts.content),
            holder_name=holder,
            holder_address=holder_address, iban=account.iban,
            routing_number=account.routing, account_number=account.number,
            opening_balance=opening, transactions=tuple(txs), total_credits=credits,
            total_debits=debits, closing_balance=balances[-1], style_seed=rng.getrandbits(32),
            content=self.options.content,
        )
