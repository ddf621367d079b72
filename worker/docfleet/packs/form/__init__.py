"""The ``form`` pack (registered in the ``docfleet.packs`` entry-point group)."""

from docfleet.packs.form.pack import FormPack

__all__ = ["FormPack"]
