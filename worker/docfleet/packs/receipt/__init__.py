"""The ``receipt`` pack (registered in the ``docfleet.packs`` entry-point group)."""

from docfleet.packs.receipt.pack import ReceiptPack

__all__ = ["ReceiptPack"]
