"""The run options every templated pack shares, parsed and normalised (they join the run
fingerprint): ``format``, ``archetypes``, ``locales``, ``conditions``, ``lines`` and
``cover``; and how a document draws its (locale, archetype, condition).

=============  ==========================================================  ===============
option         value                                                       default
=============  ==========================================================  ===============
format         ``pdf`` or ``html``                                         ``pdf``
archetypes     mix: ``classic,receipt`` or ``classic:3,boxed:1`` or JSON   all, equal
locales        mix of the locales in :mod:`.locales`                       all, equal
conditions     mix of ``clean``, ``scan``, ``photo``, ``fax``,             ``clean:4,scan:1``
               ``annotated`` (all but clean need format pdf)
lines          lines per document ``MIN-MAX`` (1-200, and the pack's max)  the pack's
cover          mixes taken in turn instead of drawn: ``locales``,          none (drawn)
               ``archetypes``, ``conditions`` or a comma list of them
content        the pack's content version (what a document prints and how   the pack's
               it varies); a stored run without it is version 1            newest
=============  ==========================================================  ===============

``content`` pins what a run's documents are: a run planned by :func:`~.pack.TemplatedPack.
validate_options` records the pack's newest version, and a stored run that predates the
option (no ``content``) parses as version 1, so it resumes with the same bytes after a pack
gains a version. The normal form keeps ``content`` when the options name it (so normalising
twice changes nothing) and leaves it out when they do not (a stored run's old form).

A pack with options of its own (the invoice's ``catalogue``, ``splits``, ``split_by``)
parses them beside these with :func:`parse_common` and :func:`parse_cover`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docfleet.core.errors import ConfigError
from docfleet.packs.sdk.locales import JURISDICTIONS

CONDITIONS = ("clean", "scan", "photo", "fax", "annotated")
#: conditions that rasterise the page (need the pdf format)
RASTER_CONDITIONS = ("scan", "photo", "fax", "annotated")
FORMATS = ("pdf", "html")
MAX_LINES = 200
#: the options of :func:`parse_pack_options`
KNOWN = ("format", "archetypes", "locales", "conditions", "lines", "cover", "content")
#: the mixes the ``cover`` option can take in turn, in the order documents draw them
COVERABLE = ("locales", "archetypes", "conditions")


def parse_mix(name: str, raw: Any, allowed: tuple[str, ...]) -> dict[str, float]:
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


def parse_lines(raw: Any) -> tuple[int, int] | None:
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
    mix = parse_mix("archetypes", options.get("archetypes") or list(archetypes), archetypes)
    locales = parse_mix("locales", options.get("locales") or list(JURISDICTIONS),
                   tuple(JURISDICTIONS))
    default_conditions = "clean:4,scan:1" if fmt == "pdf" else "clean"
    conditions = parse_mix("conditions", options.get("conditions") or default_conditions,
                           CONDITIONS)
    raster = [c for c in conditions if c in RASTER_CONDITIONS]
    if fmt == "html" and raster:
        raise ConfigError(f"option conditions: {', '.join(raster)} needs format pdf",
                          "use --option conditions=clean with --option format=html")
    return fmt, mix, locales, conditions


@dataclass(frozen=True)
class PackOptions:
    """A templated pack's normalised options (:func:`parse_pack_options`)."""

    pack: str
    format: str
    archetypes: dict[str, float]
    locales: dict[str, float]
    conditions: dict[str, float]
    lines: tuple[int, int] | None
    #: mixes taken in turn by index (see :func:`choose`)
    cover: tuple[str, ...] = ()
    #: the content version (see the module docstring)
    content: int = 1
    #: whether the options named the version (then the normal form keeps it, even 1)
    content_pinned: bool = False

    def to_dict(self) -> dict[str, Any]:
        cover = {"cover": list(self.cover)} if self.cover else {}  # unset: as before
        # a stored run without it stays without it (version 1, its old normal form)
        content = {"content": self.content} if self.content_pinned else {}
        return {
            "format": self.format,
            "archetypes": self.archetypes,
            "locales": self.locales,
            "conditions": self.conditions,
            "lines": f"{self.lines[0]}-{self.lines[1]}" if self.lines else None,
            **cover,
            **content,
        }


def parse_content(raw: Any, versions: tuple[int, ...]) -> int:
    """The ``content`` option: one of the pack's ``versions``; absent means 1 (a stored
    run from before the option). :class:`ConfigError` names a bad value."""
    if raw is None or raw == "":
        return 1
    try:
        value = int(str(raw).strip())
    except ValueError:
        value = 0
    if value not in versions:
        raise ConfigError(f"option content={raw!r} is not a content version of this pack",
                          f"choose from {', '.join(map(str, versions))}")
    return value


def parse_pack_options(pack: str, options: Mapping[str, Any], archetypes: tuple[str, ...],
                       max_lines: int, versions: tuple[int, ...] = (1,)) -> PackOptions:
    """Validate and normalise a templated pack's options (every locale of
    :mod:`.locales` is accepted); :class:`ConfigError` names the bad option and a fix.
    ``versions``: the pack's content versions (``content``)."""
    fmt, mix, locales, conditions = parse_common(pack, options, KNOWN, archetypes)
    lines = parse_lines(options.get("lines"))
    if lines and lines[1] > max_lines:
        raise ConfigError(f"option lines={options.get('lines')!r} is out of range for the "
                          f"{pack} pack", f"need 1 <= MIN <= MAX <= {max_lines}")
    cover = parse_cover(options.get("cover"), {"locales": locales, "archetypes": mix,
                                                "conditions": conditions})
    content = parse_content(options.get("content"), versions)
    pinned = options.get("content") not in (None, "")
    return PackOptions(pack, fmt, mix, locales, conditions, lines, cover, content, pinned)


def kinds(rng: random.Random, index: int, options: PackOptions) -> tuple[str, str, str]:
    """Document ``index``'s (locale, archetype, condition), drawn or covered in turn: the
    first draws of a document's ``rng``."""
    return choose(rng, index, {"locales": options.locales, "archetypes": options.archetypes,
                               "conditions": options.conditions}, options.cover)
