"""The invoice pack's run options: the templated packs' (:mod:`docfleet.packs.sdk.options`)
and its own (``catalogue``, ``splits``, ``split_by``), parsed and normalised (they join
the run fingerprint).

=============  ==========================================================  ===============
option         value                                                       default
=============  ==========================================================  ===============
format         ``pdf`` or ``html``                                         ``pdf``
archetypes     mix: ``classic,receipt`` or ``classic:3,boxed:1`` or JSON   all, equal
locales        mix of en-US, en-GB, en-AU, en-CA, fr-FR, fr-CH, de-DE,     all, equal
               de-AT, ja-JP, ar-SA
conditions     mix of ``clean``, ``scan``, ``photo``, ``fax``,             ``clean:4,scan:1``
               ``annotated`` (all but clean need format pdf)
lines          line items per invoice ``MIN-MAX`` (1-200)                  mostly 1-10, some
                                                                           multi-page 14-45
splits         ratios ``train:0.8,validation:0.1,test:0.1``                80/10/10
split_by       ``document``, ``seller`` or ``template``: what is held out  ``document``
cover          mixes taken in turn instead of drawn: ``locales``,          none (drawn)
               ``archetypes``, ``conditions`` or a comma list of them
=============  ==========================================================  ===============
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from docfleet.packs.sdk.catalogue import check_catalogue_uri
from docfleet.packs.sdk.options import parse_common, parse_content, parse_cover, parse_lines
from docfleet.packs.sdk.splits import DEFAULT_SPLITS, parse_split_by, parse_splits

ARCHETYPES = ("classic", "sidebar", "receipt", "boxed", "modern", "ledger", "credit_note",
              "multi_currency")
KNOWN = ("format", "archetypes", "locales", "conditions", "lines", "catalogue", "splits",
         "split_by", "cover", "content")
#: content versions (see :mod:`docfleet.packs.sdk.options`): 2 draws each document's words,
#: money and date style (:mod:`docfleet.packs.sdk.variation`); 3 ink truth; 4 photo recipe 2;
#: 5 ja-JP in fonts the PDF embeds (:func:`docfleet.packs.sdk.style.embedded_fonts`)
CONTENT_VERSIONS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class InvoiceOptions:
    format: str
    archetypes: dict[str, float]
    locales: dict[str, float]
    conditions: dict[str, float]
    lines: tuple[int, int] | None
    #: an LLM catalogue (``<out>/<catalogue run id>``) to draw line descriptions from
    catalogue: str | None = None
    #: train/validation/test ratios and what a split holds out (see docfleet.dataset.splits)
    splits: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_SPLITS))
    split_by: str = "document"
    #: mixes taken in turn by index instead of drawn (see :func:`.sdk.options.choose`)
    cover: tuple[str, ...] = ()
    content: int = 1
    content_pinned: bool = False  # named in the options: the normal form keeps it

    def to_dict(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"catalogue": self.catalogue} if self.catalogue else {}
        if self.cover:  # absent when unset: older runs keep their fingerprints
            extra["cover"] = list(self.cover)
        if self.content_pinned:  # absent in a stored run from before: version 1
            extra["content"] = self.content
        return {
            **extra,
            "format": self.format,
            "archetypes": self.archetypes,
            "locales": self.locales,
            "conditions": self.conditions,
            "lines": f"{self.lines[0]}-{self.lines[1]}" if self.lines else None,
            "splits": self.splits,
            "split_by": self.split_by,
        }


def parse_options(options: Mapping[str, Any]) -> InvoiceOptions:
    """Validate and normalise; :class:`ConfigError` names the bad option and a fix."""
    fmt, archetypes, locales, conditions = parse_common("invoice", options, KNOWN, ARCHETYPES)
    catalogue = str(options.get("catalogue") or "").strip() or None
    if catalogue:
        check_catalogue_uri(catalogue)  # ConfigError for a URI that names no run
    cover = parse_cover(options.get("cover"), {"locales": locales, "archetypes": archetypes,
                                                "conditions": conditions})
    return InvoiceOptions(fmt, archetypes, locales, conditions, parse_lines(options.get("lines")),
                          catalogue, parse_splits(options.get("splits")),
                          parse_split_by(options.get("split_by")), cover,
                          parse_content(options.get("content"), CONTENT_VERSIONS),
                          options.get("content") not in (None, ""))
