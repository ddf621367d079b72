"""The ``cover`` option of every record pack (invoice, receipt, purchase_order,
bank_statement), without a browser: the covered mixes are taken in turn so that N
consecutive documents hold every combination once, the other draws of a document are the
ones it has without ``cover``, a run without it keeps its fingerprint, and a bad value is a
one-line :class:`ConfigError`."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from packlib import FORM, PACKS

from docfleet.core.errors import ConfigError
from docfleet.packs.invoice.options import parse_options
from docfleet.packs.invoice.pack import InvoicePack
from docfleet.packs.invoice.source import InvoiceSource
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.options import CONDITIONS

ALL_PACKS: dict[str, Any] = {"invoice": InvoicePack(), **PACKS, "form": FORM}


def source(name: str, options: dict[str, Any]) -> Any:
    if name == "invoice":
        return InvoiceSource(parse_options(options))
    return ALL_PACKS[name].source(options)


@pytest.mark.parametrize("name", sorted(ALL_PACKS))
def test_covered_mixes_hold_every_combination_once_per_cycle(name: str) -> None:
    options = {"cover": "conditions,locales", "conditions": ",".join(CONDITIONS)}
    src = source(name, options)
    cells = len(JURISDICTIONS) * len(CONDITIONS)
    for start in (0, 7):  # any window of N consecutive documents
        got = [(r.locale, r.condition) for r in (src.generate("cover", i)
                                                 for i in range(start, start + cells))]
        assert sorted(got) == sorted(product(JURISDICTIONS, CONDITIONS))
    # locales vary fastest, in the mix's order
    first = [src.generate("cover", i).locale for i in range(len(JURISDICTIONS))]
    assert first == list(JURISDICTIONS)


@pytest.mark.parametrize("name", sorted(ALL_PACKS))
def test_cover_changes_only_what_it_covers(name: str) -> None:
    """With one locale, covering it or drawing it yields the same documents."""
    drawn = source(name, {"locales": "de-DE", "conditions": "clean"})
    covered = source(name, {"locales": "de-DE", "conditions": "clean", "cover": "locales"})
    for i in range(6):
        assert covered.generate("same", i) == drawn.generate("same", i)


@pytest.mark.parametrize("name", sorted(ALL_PACKS))
def test_options_without_cover_keep_their_normal_form(name: str) -> None:
    pack = ALL_PACKS[name]
    assert "cover" not in pack.validate_options({})
    normal = pack.validate_options({"cover": "archetypes,locales"})
    assert normal["cover"] == ["locales", "archetypes"]
    assert pack.validate_options(normal) == normal  # the stored form parses to itself


@pytest.mark.parametrize(("value", "message"), [
    ("pages", "option cover: 'pages' is not a mix it can take in turn"),
    ("locales,locales", "names a mix twice"),
    ("conditions", "the conditions mix has unequal weights (clean:4,scan:1)"),
])
@pytest.mark.parametrize("name", sorted(ALL_PACKS))
def test_a_bad_cover_is_a_one_line_error(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        ALL_PACKS[name].validate_options({"cover": value})
    text = str(err.value)
    assert message in text and "\n" not in text
