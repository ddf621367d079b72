"""Train/validation/test splits for a pack that assigns them (the invoice's ``splits`` and
``split_by`` options): the rules are :mod:`docfleet.dataset.splits`' (one owner); a pack
reaches them through here. A split is a pure function of the run's split options and one
group key of the document (its index, its seller, its template).

A pack without split options of its own gives its document table a ``split`` column
(``schema.with_split``) holding :func:`document_split`: the default
ratios held out by document, exactly what the invoice's defaults give the same index."""

from __future__ import annotations

from docfleet.dataset.splits import (
    DEFAULT_SPLITS,
    SPLIT_BY,
    SPLITS,
    assign_groups,
    parse_split_by,
    parse_splits,
    split_of,
)

__all__ = ["DEFAULT_SPLITS", "SPLITS", "SPLIT_BY", "assign_groups", "document_split",
           "parse_split_by", "parse_splits", "split_of"]


def document_split(index: int) -> str:
    """Document ``index``'s split under the default ratios, held out by document."""
    return split_of(str(index), DEFAULT_SPLITS, "document")

