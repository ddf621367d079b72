"""Model-written texts a pack may print: a finished catalogue run (``docfleet catalogue
build``) named by a pack option (the invoice's ``catalogue``). The dataset layer reads
the artifact (:mod:`docfleet.dataset.catalogue`); a pack reaches it only through here,
and reads it, never writes it."""

from __future__ import annotations

from docfleet.dataset.catalogue import Catalogue, split_catalogue_uri


def check_catalogue_uri(uri: str) -> None:
    """:class:`ConfigError` for a catalogue URI that names no run (``<out>/<run id>``);
    reads nothing."""
    split_catalogue_uri(uri)


def load_catalogue(uri: str) -> Catalogue:
    """The complete catalogue at ``uri`` (its ``pick(kind, locale, seed, line)`` draws a
    text); :class:`ConfigError` if it is not a complete catalogue run."""
    return Catalogue.load(uri)
