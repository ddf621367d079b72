"""Byte-deterministic PDFs: Chromium stamps the wall clock into every PDF it prints; we
replace the creation/modification dates (and a document ``/ID``, if any) with values
derived from the document, keeping every byte offset (same-length edits), so the xref
table stays valid and the same document always has the same bytes. A batch printed in one
``page.pdf`` call is split into one PDF per document first (:func:`split_pdf`)."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import re
from collections.abc import Sequence

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


def split_pdf(data: bytes, pages: Sequence[int], titles: Sequence[str],
              wanted: Sequence[bool]) -> list[bytes | None]:
    """Split a PDF printed from a batch into one PDF per document: document *k* is the
    next ``pages[k]`` pages, titled ``titles[k]``; ``None`` where not ``wanted``. Each
    output holds only the objects its pages use, the batch's document info (dates
    included, for :func:`normalise_pdf`) and a fixed ``/ID``; stream data is copied as
    printed, so the same batch always gives the same bytes. Raises ``ValueError`` if the
    page counts do not add up to the printed pages."""
    import pikepdf

    with pikepdf.open(io.BytesIO(data)) as src:
        if len(src.pages) != sum(pages):
            raise ValueError(f"the batch printed {len(src.pages)} pages, its documents "
                             f"have {sum(pages)}")
        info = {k: v for k, v in src.docinfo.items() if k != "/Title"}
        out: list[bytes | None] = []
        start = 0
        for count, title, want in zip(pages, titles, wanted, strict=True):
            if want:
                dst = pikepdf.new()
                dst.pages.extend(src.pages[start:start + count])
                dst.docinfo = dst.make_indirect(
                    pikepdf.Dictionary({"/Title": pikepdf.String(title), **info}))
                buf = io.BytesIO()
                dst.save(buf, static_id=True, min_version=src.pdf_version,
                         stream_decode_level=pikepdf.StreamDecodeLevel.none,
                         object_stream_mode=pikepdf.ObjectStreamMode.disable)
                out.append(buf.getvalue())
            else:
                out.append(None)
            start += count
        return out
