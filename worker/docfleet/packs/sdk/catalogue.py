"""Model-written texts a pack may print: a finished catalogue run (``docfleet catalogue
build``) named by a pack option (the invoice's ``catalogue``). The catalogue layer owns
the artifact (:mod:`docfleet.catalogue.artifact`); a pack reaches it only through here,
and reads it, never writes it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docfleet.catalogue.artifact import Catalogue


def check_catalogue_uri(uri: str) -> None:
    """:class:`ConfigError` for a catalogue URI that names no run (``<out>/<run id>``);
    reads nothing."""
    from docfleet.catalogue.artifact import split_catalogue_uri

    split_catalogue_uri(uri)


def load_catalogue(uri: str) -> Catalogue:
    """The complete catalogue at ``uri`` (its ``pick(kind, locale, seed, line)`` draws a
    text); :class:`ConfigError` if it is not a complete catalogue run."""
    from docfleet.catalogue.artifact import Catalogue

    return Catalogue.load(uri)
