"""Faker's per-locale directory scan, kept once per process (``packs/sdk/parties.py``):
a Faker for another locale lists no directory again, and every Faker is built from the
same providers and draws the same values as an unpatched Faker. Each side runs in a
fresh interpreter (the memo is process-wide)."""

from __future__ import annotations

import json
import subprocess
import sys

LOCALES = ("en_US", "de_DE", "fr_CH", "ja_JP", "ar_SA", "en_AU")

#: argv[1]: "memo" (docfleet's scan memo first) or "plain"; prints, per locale, the
#: os.listdir calls its Faker made, its providers and their languages, and seeded draws
SCRIPT = r"""
import json, os, sys
from faker import Faker
if sys.argv[1] == "memo":
    from docfleet.packs.sdk.parties import _scan_faker_locales_once
    _scan_faker_locales_once()
    _scan_faker_locales_once()  # idempotent: the memo is not wrapped twice
    import faker.factory
    assert not hasattr(faker.factory.list_module.__wrapped__, "cache_info")
calls = [0]
listdir = os.listdir
def counted(*a, **k):
    calls[0] += 1
    return listdir(*a, **k)
os.listdir = counted
out = {}
for locale in sys.argv[2:]:
    calls[0] = 0
    fake = Faker(locale)
    made = calls[0]
    fake.seed_instance(20261207)
    out[locale] = {
        "listdir": made,
        "providers": [[type(p).__module__, getattr(p, "__lang__", None)]
                      for p in fake.providers],
        "draws": [fake.name(), fake.address(), fake.company(), fake.phone_number(),
                  fake.email(), fake.iban(), fake.date_of_birth().isoformat(),
                  fake.street_address(), fake.postcode()],
    }
print(json.dumps(out))
"""


def _fakers(mode: str) -> dict[str, dict[str, object]]:
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode, *LOCALES],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, dict[str, object]] = json.loads(done.stdout)
    return result


def test_a_faker_for_another_locale_lists_no_directory_and_draws_as_before() -> None:
    memo, plain = _fakers("memo"), _fakers("plain")
    # without the memo every locale scans the providers' directories again
    assert all(int(str(plain[loc]["listdir"])) > 100 for loc in LOCALES), plain
    # with it, only the first locale's Faker scans; the others list nothing
    assert int(str(memo[LOCALES[0]]["listdir"])) > 100
    assert [memo[loc]["listdir"] for loc in LOCALES[1:]] == [0] * (len(LOCALES) - 1)
    for loc in LOCALES:  # the same providers, in the same languages, the same draws
        assert memo[loc]["providers"] == plain[loc]["providers"], loc
        assert memo[loc]["draws"] == plain[loc]["draws"], loc
    # the locales are really different Fakers (the comparison above is not vacuous)
    assert len({json.dumps(memo[loc]["draws"]) for loc in LOCALES}) == len(LOCALES)
