"""The ``purchase_order`` pack (registered in the ``docfleet.packs`` entry-point group)."""

from docfleet.packs.purchase_order.pack import PurchaseOrderPack

__all__ = ["PurchaseOrderPack"]
