"""Issue 29 item 5: French invoice sellers' IBANs carry a valid RIB key from content 3
(content 2 keeps its bytes: Faker's random key), and every seller BIC is ASCII A-Z/0-9."""

from __future__ import annotations

from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.source import InvoiceSource
from docfleet.packs.sdk.banking import iban_valid, rib_key, rib_valid, with_rib_key


def sellers(content: int, locale: str, n: int = 40) -> list:
    source = InvoiceSource(parse_options({"locales": locale, "content": content}))
    return [source.generate("bank-ids", i).seller for i in range(n)]


def test_french_sellers_have_valid_rib_keys_from_content_3() -> None:
    for seller in sellers(3, "fr-FR"):
        assert seller.iban.startswith("FR") and iban_valid(seller.iban)
        assert rib_valid(seller.iban), seller.iban
        assert seller.bic.isascii() and seller.bic.isalnum() and seller.bic.isupper()
    # content 2 as it was: the IBAN's check digits hold, its RIB key is Faker's draw
    older = sellers(2, "fr-FR")
    assert all(iban_valid(s.iban) for s in older)
    assert sum(rib_valid(s.iban) for s in older) < len(older) // 2


def test_other_sellers_keep_their_iban() -> None:
    for locale in ("de-DE", "fr-CH", "ar-SA"):
        for new, old in zip(sellers(3, locale, 10), sellers(2, locale, 10), strict=True):
            assert new.iban == old.iban and new.bic == old.bic


def test_the_rib_key_reads_letters_of_an_account_as_digits() -> None:
    # the published example RIB: 30002 00550 0000157845Z 02 (the account's Z counts 9)
    assert rib_key("30002", "00550", "00001578459") == "02"
    compact = with_rib_key("FR7630002005500000157845Z99")
    assert compact.endswith("Z02") and iban_valid(compact) and rib_valid(compact)
