"""A golden table's rows held as Arrow columns: what a pack gives for a table of
thousands of rows a document (the ``chars`` table), for the kernel to write as they are
(:mod:`docfleet.dataset.shards`). No pyarrow at import: the class only holds a table."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    import pyarrow as pa


class Columns(Sequence[dict[str, Any]]):
    """Rows of one golden table held as Arrow columns, converted once instead of row by
    row. ``table`` has the table's schema (:func:`docfleet.dataset.shards.shard_bytes`
    raises ``ValueError`` if not).
    Also a read-only sequence of row dicts, each built on demand (for tests and callers
    that want rows); equal to another ``Columns`` or list with the same rows."""

    __slots__ = ("table",)

    def __init__(self, table: pa.Table) -> None:
        self.table = table

    def __len__(self) -> int:
        return self.table.num_rows

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return self.table.to_pylist()[index]
        count = self.table.num_rows
        if not -count <= index < count:
            raise IndexError("Columns index out of range")
        row: dict[str, Any] = self.table.slice(index % count, 1).to_pylist()[0]
        return row

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.table.to_pylist())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Columns):
            return bool(self.table.equals(other.table))
        return isinstance(other, list) and self.table.to_pylist() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Columns({self.table.num_rows} rows)"
