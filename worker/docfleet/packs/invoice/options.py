"""The invoice pack's run options, parsed and normalised (they join the run fingerprint).

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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docfleet.core.errors import ConfigError
from docfleet.dataset.splits import DEFAULT_SPLITS, parse_split_by, parse_splits
from docfleet.packs.invoice.locales import JURISDICTIONS

ARCHETYPES = ("classic", "sidebar", "receipt", "boxed", "modern", "ledger", "credit_note",
              "multi_currency")
CONDITIONS = ("clean", "scan", "photo", "fax", "annotated")
#: conditions that rasterise the page (need the pdf format)
RASTER_CONDITIONS = ("scan", "photo", "fax", "annotated")
FORMATS = ("pdf", "html")
MAX_LINES = 200

KNOWN = ("format", "archetypes", "locales", "conditions", "lines", "catalogue", "splits",
         "split_by", "cover")
#: the mixes the ``cover`` option can take in turn, in the order documents draw them
COVERABLE = ("locales", "archetypes", "conditions")


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
    #: mixes taken in turn by index instead of drawn (see :func:`choose`)
    cover: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"catalogue": self.catalogue} if self.catalogue else {}
        if self.cover:  # absent when unset: older runs keep their fingerprints
            extra["cover"] = list(self.cover)
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


def _mix(name: str, raw: Any, allowed: tuple[str, ...]) -> dict[str, float]:
    """``a,b`` | ``a:3,b:1`` | JSON object | list → {name: weight} in ``allowed`` order."""
    example = f"e.g. --option {name}={allowed[0]}:3,{allowed[-1]}:1"
    if isinstance(raw, str) and raw.strip().startswith("{"):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise ConfigError(f"option {name}={raw!r} is not valid JSON", example) from None
    pairs: list[tuple[str, Any]]
    if isinstance(raw, Mapping):
        pairs = list(raw.items())
    elif isinstance(raw, list | tuple):
        pairs = [(str(x), 1) for x in raw]
    elif isinstance(raw, str):
        pairs = []
        for item in (x.strip() for x in raw.split(",")):
            if not item:
                continue
            key, sep, weight = item.partition(":")
            pairs.append((key.strip(), weight.strip() if sep else 1))
    else:
        raise ConfigError(f"option {name}={raw!r} is not a mix", example)
    weights: dict[str, float] = {}
    for key, weight in pairs:
        if key not in allowed:
            raise ConfigError(f"option {name}: unknown value {key!r}",
                              f"choose from {', '.join(allowed)}")
        try:
            value = float(weight)
        except (TypeError, ValueError):
            raise ConfigError(f"option {name}: weight {weight!r} of {key} is not a number",
                              example) from None
        if not value >= 0 or value == float("inf"):
            raise ConfigError(f"option {name}: weight of {key} must be >= 0", example)
        weights[key] = weights.get(key, 0.0) + value
    weights = {k: weights[k] for k in allowed if weights.get(k)}
    if not weights:
        raise ConfigError(f"option {name} selects nothing", example)
    return weights


def _lines(raw: Any) -> tuple[int, int] | None:
    if raw is None:
        return None
    text = str(raw).strip()
    low, sep, high = text.partition("-")
    try:
        lo, hi = (int(low), int(high)) if sep else (int(low), int(low))
    except ValueError:
        raise ConfigError(f"option lines={raw!r} is not MIN-MAX", "e.g. --option lines=3-12") \
            from None
    if not 1 <= lo <= hi <= MAX_LINES:
        raise ConfigError(f"option lines={raw!r} is out of range",
                          f"need 1 <= MIN <= MAX <= {MAX_LINES}")
    return lo, hi


def parse_cover(raw: Any, mixes: Mapping[str, Mapping[str, float]]) -> tuple[str, ...]:
    """The ``cover`` option: which of ``mixes`` (``locales``, ``archetypes``,
    ``conditions``) documents take in turn. A covered mix must have equal weights (in turn
    means each value equally often); :class:`ConfigError` names what is wrong."""
    if raw is None or raw == "" or raw == []:
        return ()
    items = raw if isinstance(raw, list | tuple) else str(raw).split(",")
    names = [str(x).strip() for x in items if str(x).strip()]
    for name in names:
        if name not in COVERABLE:
            raise ConfigError(f"option cover: {name!r} is not a mix it can take in turn",
                              f"use a comma list of {', '.join(COVERABLE)}")
    if len(set(names)) != len(names):
        raise ConfigError(f"option cover={raw!r} names a mix twice",
                          "name each of locales, archetypes, conditions at most once")
    for name in names:
        if len(set(mixes[name].values())) > 1:
            raise ConfigError(
                f"option cover={','.join(names)}: the {name} mix has unequal weights "
                f"({','.join(f'{k}:{w:g}' for k, w in mixes[name].items())})",
                f"give --option {name}=a,b,c without weights to take each in turn")
    return tuple(sorted(names, key=COVERABLE.index))


def choose(rng: Any, index: int, mixes: Mapping[str, Mapping[str, float]],
           cover: tuple[str, ...] = ()) -> tuple[str, str, str]:
    """Document ``index``'s (locale, archetype, condition): each drawn from its mix by
    weight with ``rng``, except the mixes named in ``cover``, which take their values in
    turn — document *i* is combination *i* mod N of the covered values (N the product of
    their counts, locales varying fastest), so any N consecutive documents hold every
    combination exactly once. The three draws are made either way (the document's other
    draws do not depend on ``cover``). Deterministic in (rng state, index)."""
    picked = {}
    for name in COVERABLE:
        keys = list(mixes[name])
        picked[name] = rng.choices(keys, weights=[mixes[name][k] for k in keys])[0]
    rest = index
    for name in COVERABLE:
        if name in cover:
            keys = list(mixes[name])
            picked[name] = keys[rest % len(keys)]
            rest //= len(keys)
    return picked["locales"], picked["archetypes"], picked["conditions"]


def parse_common(pack: str, options: Mapping[str, Any], known: Sequence[str],
                 archetypes: tuple[str, ...]
                 ) -> tuple[str, dict[str, float], dict[str, float], dict[str, float]]:
    """The options every templated pack shares, validated: (format, archetype mix, locale
    mix, condition mix). :class:`ConfigError` names an unknown option (``known`` are the
    pack's), a bad format or mix, or a raster condition asked of html."""
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ConfigError(f"the {pack} pack has no option {', '.join(unknown)}",
                          f"known options: {', '.join(known)}")
    fmt = str(options.get("format") or "pdf").lower()
    if fmt not in FORMATS:
        raise ConfigError(f"option format={fmt!r} is not supported", "use pdf or html")
    mix = _mix("archetypes", options.get("archetypes") or list(archetypes), archetypes)
    locales = _mix("locales", options.get("locales") or list(JURISDICTIONS),
                   tuple(JURISDICTIONS))
    default_conditions = "clean:4,scan:1" if fmt == "pdf" else "clean"
    conditions = _mix("conditions", options.get("conditions") or default_conditions, CONDITIONS)
    raster = [c for c in conditions if c in RASTER_CONDITIONS]
    if fmt == "html" and raster:
        raise ConfigError(f"option conditions: {', '.join(raster)} needs format pdf",
                          "use --option conditions=clean with --option format=html")
    return fmt, mix, locales, conditions


def parse_options(options: Mapping[str, Any]) -> InvoiceOptions:
    """Validate and normalise; :class:`ConfigError` names the bad option and a fix."""
    fmt, archetypes, locales, conditions = parse_common("invoice", options, KNOWN, ARCHETYPES)
    catalogue = str(options.get("catalogue") or "").strip() or None
    if catalogue:
        from docfleet.catalogue.artifact import split_catalogue_uri

        split_catalogue_uri(catalogue)  # ConfigError for a URI that names no run
    cover = parse_cover(options.get("cover"), {"locales": locales, "archetypes": archetypes,
                                                "conditions": conditions})
    return InvoiceOptions(fmt, archetypes, locales, conditions, _lines(options.get("lines")),
                          catalogue, parse_splits(options.get("splits")),
                          parse_split_by(options.get("split_by")), cover)
