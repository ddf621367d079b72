"""The ``invoice`` pack (registered in the ``docfleet.packs`` entry-point group)."""

from docfleet.packs.invoice.pack import InvoicePack, InvoiceSession

__all__ = ["InvoicePack", "InvoiceSession"]
