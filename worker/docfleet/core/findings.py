"""What ``docfleet store init`` reports: one :class:`Finding` a line. Each backend's init
hook (``state/<backend>/init.py``, the blob stores' in :mod:`docfleet.ops.storeinit`)
returns a list of them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One line of the report: ``ok`` false means the store is not usable as it is."""

    ok: bool
    what: str
    hint: str = ""

    def line(self) -> str:
        mark = "ok " if self.ok else "MISSING"
        return f"{mark} {self.what}" + (f" ({self.hint})" if self.hint else "")
