"""Receipt layouts: one continuous narrow page whose height is computed from the rows it
prints. Every row has a fixed height (``units`` x ``line``) and never wraps (texts are
fitted to ``columns`` when the record is drawn), so the page is exactly as tall as its
content: no A4 pagination, no blank tail. The template reads the same numbers (CSS px)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReceiptLayout:
    name: str
    width: int  # paper width, CSS px (80 mm = 302 px, 58 mm = 219 px)
    pad_x: int
    pad_top: int
    pad_bottom: int
    font: str
    font_size: float
    line: int  # one row unit
    rule: int  # a separator between blocks (border + margins)
    columns: int  # text budget per row (monospace columns, conservative for sans)
    logo: int  # logo height, 0 = none
    barcode: int  # barcode height, 0 = none
    two_line_items: bool  # name on one row, quantity x price + amount on the next
    tax_base: bool  # tax rows print the base


RECEIPT_LAYOUTS: dict[str, ReceiptLayout] = {
    "thermal": ReceiptLayout("thermal", 302, 12, 16, 20, "'Liberation Mono', monospace", 11,
                             15, 13, 40, 48, 44, False, True),
    "compact": ReceiptLayout("compact", 219, 8, 10, 14, "'DejaVu Sans Mono', monospace",
                             9.5, 13, 9, 33, 0, 0, True, False),
    "bistro": ReceiptLayout("bistro", 302, 14, 18, 22, "'Liberation Sans', sans-serif", 11,
                            16, 15, 34, 52, 0, False, False),
    # a supermarket's roll: small monospace, long item lists, no logo, a barcode
    "market": ReceiptLayout("market", 302, 10, 14, 18, "'DejaVu Sans Mono', monospace", 10,
                            14, 11, 42, 0, 40, False, True),
    # a self-order kiosk or takeaway: sans-serif, two-line items, a logo
    "kiosk": ReceiptLayout("kiosk", 302, 14, 16, 20, "'DejaVu Sans', sans-serif", 11, 16,
                           15, 32, 40, 0, True, False),
    # a pharmacy or chain store: condensed sans, a logo and a barcode
    "pharmacy": ReceiptLayout("pharmacy", 302, 12, 14, 18,
                              "'DejaVu Sans Condensed', 'DejaVu Sans', sans-serif", 10.5, 15,
                              13, 36, 44, 44, False, True),
    # a fuel station or parking terminal: a 58 mm roll, small monospace, a barcode
    "fuel": ReceiptLayout("fuel", 219, 7, 10, 12, "'Liberation Mono', monospace", 9, 12, 9,
                          34, 0, 36, False, False),
    # a boutique's receipt: serif, generous spacing, a large logo
    "boutique": ReceiptLayout("boutique", 302, 16, 20, 24, "'Liberation Serif', serif", 12,
                              18, 17, 30, 56, 0, False, False),
}

#: an item table's columns besides the name (quantity, price, amount, tax code and the
#: spaces between): the source fits names to a layout's ``columns`` less this
ITEM_TABLE_COLUMNS = 25
