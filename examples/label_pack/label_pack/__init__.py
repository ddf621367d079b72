"""The ``label`` pack: parcel shipping labels (registered in the ``docfleet.packs``
entry-point group by this distribution's pyproject.toml)."""

from label_pack.pack import LabelPack

__all__ = ["LabelPack"]
