"""Byte-deterministic PDFs: Chromium stamps the wall clock into every PDF it prints; we
replace the creation/modification dates (and a document ``/ID``, if any) with values
derived from the document, keeping every byte offset (same-length edits), so the xref
table stays valid and the same document always has the same bytes."""

from __future__ import annotations

import datetime as dt
import hashlib
import re

_DATE = re.compile(rb"/(CreationDate|ModDate) \(D:[0-9]{14}([^)]*)\)")
_ID = re.compile(rb"/ID \[<([0-9A-Fa-f]+)> ?<([0-9A-Fa-f]+)>\]")


def pdf_date(day: dt.date) -> bytes:
    return f"{day.year:04d}{day.month:02d}{day.day:02d}000000".encode()


def normalise_pdf(data: bytes, day: dt.date) -> bytes:
    """Set both PDF dates to ``day`` at 00:00:00 UTC and a content-derived ``/ID``."""

    def date(m: re.Match[bytes]) -> bytes:
        zone = m.group(2)
        fixed = b"+00'00'"
        zone = fixed if len(zone) == len(fixed) else zone
        return b"/" + m.group(1) + b" (D:" + pdf_date(day) + zone + b")"

    out = _DATE.sub(date, data)
    if _ID.search(out):
        digest = hashlib.sha256(_ID.sub(b"", out)).hexdigest().upper().encode()

        def ident(m: re.Match[bytes]) -> bytes:
            a, b = digest[: len(m.group(1))], digest[: len(m.group(2))]
            return b"/ID [<" + a + b"> <" + b + b">]" if b"> <" in m.group(0) else \
                b"/ID [<" + a + b"><" + b + b">]"

        out = _ID.sub(ident, out)
    if len(out) != len(data):
        raise ValueError("PDF normalisation changed the file length")
    return out


def check_pdf(data: bytes) -> None:
    """Raise if ``data`` does not look like a complete PDF."""
    if not data.startswith(b"%PDF-") or b"%%EOF" not in data[-1024:]:
        raise ValueError("not a complete PDF")
