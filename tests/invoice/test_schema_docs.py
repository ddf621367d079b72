"""docs/schema.md documents every golden table and column the invoice pack writes, and
the schema module describes every column (the dataset card prints those meanings)."""

from __future__ import annotations

import re
from pathlib import Path

from docfleet.packs.invoice.schema import COLUMN_DOCS, INVOICES_V2, TABLES
from docfleet.packs.sdk.schema import INK_TABLES, TOKENISATION

DOC = Path(__file__).resolve().parents[2] / "docs" / "schema.md"


def test_every_table_and_column_is_documented() -> None:
    text = DOC.read_text()
    sections = re.split(r"^### ", text, flags=re.M)
    # the newest versions hold the older ones: v2's invoices, the ink truth's tables
    for table, schema in {**TABLES, **INK_TABLES, "invoices": INVOICES_V2}.items():
        section = next((s for s in sections if s.startswith(f"`{table}`")), None)
        assert section is not None, f"docs/schema.md has no section for {table}"
        for name in schema.names:
            assert f"| `{name}` |" in section, f"{table}.{name} is not in docs/schema.md"
            assert COLUMN_DOCS[table][name], f"{table}.{name} has no meaning"
        assert set(COLUMN_DOCS[table]) == set(schema.names)


def test_the_schema_doc_states_the_rules() -> None:
    text = DOC.read_text()
    for needle in ("Tokenisation rule", "discount_total = Σ line_items.discount_amount",
                   "total = subtotal + tax_total", "ROUND_HALF_UP", "MediaBox",
                   "Reading order", "data-label-scope", "split_by", "FPDFText_GetCharBox",
                   "ink_content"):
        assert needle in text, needle
    assert "no-break spaces" in TOKENISATION
