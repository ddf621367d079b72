"""The ``bank_statement`` pack (registered in the ``docfleet.packs`` entry-point group)."""

from docfleet.packs.bank_statement.pack import BankStatementPack

__all__ = ["BankStatementPack"]
