"""The catalogue's items and its run options. Item ``i`` of a run is a pure function of
the options: kinds x product lines x locales x variants, variant fastest."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from docfleet.core.errors import ConfigError

#: kind → (what to write, max characters). Descriptions fit one invoice line (< 40 chars).
KINDS: dict[str, tuple[str, int]] = {
    "description": ("a product or service description as printed on one invoice line", 40),
    "tagline": ("a short seller tagline printed under the company name", 60),
    "payment_terms": ("the payment terms sentence printed at the bottom of an invoice", 140),
    "note": ("a brief polite note to the customer printed on an invoice", 180),
}
#: product line key (the invoice pack's keys) → subject in English, for the prompt.
LINES: dict[str, str] = {
    "office": "office supplies",
    "cloud": "cloud hosting services",
    "coffee": "wholesale coffee",
    "energy": "electricity supply",
    "consulting": "consulting services",
    "hardware": "industrial fasteners",
    "software": "software licences",
    "print": "a print shop",
}
#: locale → (language code, language name)
LOCALES: dict[str, tuple[str, str]] = {
    "en-US": ("en", "American English"),
    "en-GB": ("en", "British English"),
    "fr-FR": ("fr", "French"),
    "de-DE": ("de", "German"),
    "en-AU": ("en", "Australian English"),
    "en-CA": ("en", "Canadian English"),
    "fr-CH": ("fr", "Swiss French"),
    "de-AT": ("de", "Austrian German"),
    "ja-JP": ("ja", "Japanese"),
    "ar-SA": ("ar", "Arabic (Saudi Arabia)"),
}
#: the locales a catalogue writes for when none are given (the others fall back by
#: language: an en-AU invoice reads en-GB/en-US text; ask for ja-JP, ar-SA explicitly)
DEFAULT_LOCALES = ("en-US", "en-GB", "fr-FR", "de-DE")
PROMPT_VERSION = "catalogue-prompt/1"

OPTION_KEYS = (
    "models", "fallback", "budget_usd", "max_tokens", "prices", "kinds", "lines", "locales",
    "variants", "quarantine_after", "max_models_per_item", "prompt_version",
)


@dataclass(frozen=True)
class Item:
    index: int
    kind: str
    line: str
    locale: str
    variant: int

    @property
    def key(self) -> str:
        """The item's routing key: stable across runs with the same plan."""
        return f"{self.kind}/{self.line}/{self.locale}/{self.variant}"

    @property
    def language(self) -> str:
        return LOCALES[self.locale][0]

    @property
    def max_chars(self) -> int:
        return KINDS[self.kind][1]


@dataclass(frozen=True)
class Price:
    """USD per million tokens, exact."""

    input_per_mtok: Decimal
    output_per_mtok: Decimal


@dataclass(frozen=True)
class CatalogueOptions:
    models: dict[str, float]
    fallback: tuple[str, ...]
    budget_usd: Decimal | None
    max_tokens: int
    prices: dict[str, Price]
    kinds: tuple[str, ...]
    lines: tuple[str, ...]
    locales: tuple[str, ...]
    variants: int
    quarantine_after: int
    max_models_per_item: int
    prompt_version: str

    @property
    def total(self) -> int:
        return len(self.kinds) * len(self.lines) * len(self.locales) * self.variants

    @property
    def cap_nano(self) -> int | None:
        return None if self.budget_usd is None else int(self.budget_usd * 1_000_000_000)

    def item(self, index: int) -> Item:
        """Item ``index`` (0 <= index < total); raises IndexError outside."""
        if not 0 <= index < self.total:
            raise IndexError(f"catalogue item {index} outside 0..{self.total - 1}")
        rest, variant = divmod(index, self.variants)
        rest, loc = divmod(rest, len(self.locales))
        kind, line = divmod(rest, len(self.lines))
        return Item(index, self.kinds[kind], self.lines[line], self.locales[loc], variant)

    def to_dict(self) -> dict[str, Any]:
        """The normalised options (JSON-ready; parsing them again gives the same)."""
        return {
            "models": self.models,
            "fallback": list(self.fallback),
            "budget_usd": None if self.budget_usd is None else str(self.budget_usd),
            "max_tokens": self.max_tokens,
            "prices": {m: [str(p.input_per_mtok), str(p.output_per_mtok)]
                       for m, p in sorted(self.prices.items())},
            "kinds": list(self.kinds),
            "lines": list(self.lines),
            "locales": list(self.locales),
            "variants": self.variants,
            "quarantine_after": self.quarantine_after,
            "max_models_per_item": self.max_models_per_item,
            "prompt_version": self.prompt_version,
        }


def _json(name: str, raw: Any) -> Any:
    if isinstance(raw, str) and raw.strip()[:1] in ("{", "["):
        try:
            return json.loads(raw)
        except ValueError:
            raise ConfigError(f"option {name}={raw!r} is not valid JSON") from None
    return raw


def _names(name: str, raw: Any, allowed: Mapping[str, Any] | None) -> tuple[str, ...]:
    raw = _json(name, raw)
    items = [x.strip() for x in raw.split(",")] if isinstance(raw, str) else list(raw)
    out = tuple(dict.fromkeys(str(x) for x in items if str(x)))
    if not out:
        raise ConfigError(f"option {name} selects nothing")
    if allowed is not None:
        bad = [x for x in out if x not in allowed]
        if bad:
            raise ConfigError(f"option {name}: unknown {', '.join(bad)}",
                              f"choose from {', '.join(allowed)}")
    return out


def _models(raw: Any) -> dict[str, float]:
    """``a,b`` | ``a=3,b=1`` | JSON object → {model: weight > 0}."""
    raw = _json("models", raw)
    pairs: list[tuple[str, Any]]
    if isinstance(raw, Mapping):
        pairs = list(raw.items())
    elif isinstance(raw, str):
        pairs = []
        for part in (p.strip() for p in raw.split(",")):
            if part:
                model, sep, weight = part.rpartition("=") if "=" in part else (part, "", 1)
                pairs.append((model.strip(), weight if sep else 1))
    else:
        pairs = [(str(m), 1) for m in raw]
    models: dict[str, float] = {}
    for model, weight in pairs:
        try:
            w = float(weight)
        except (TypeError, ValueError):
            raise ConfigError(f"model weight {weight!r} of {model} is not a number") from None
        if not w > 0 or w == float("inf"):
            raise ConfigError(f"model weight of {model} must be > 0")
        models[model] = models.get(model, 0.0) + w
    if not models:
        raise ConfigError("no model given", "pass --model provider/model (repeatable)")
    return dict(sorted(models.items()))


def _decimal(name: str, raw: Any) -> Decimal:
    try:
        value = Decimal(str(raw))
    except InvalidOperation:
        raise ConfigError(f"option {name}={raw!r} is not a number") from None
    if not value.is_finite() or value < 0:
        raise ConfigError(f"option {name}={raw!r} must be a number >= 0")
    return value


def _prices(raw: Any) -> dict[str, Price]:
    """{model: [in, out]} or ``model=in/out;…`` in USD per million tokens."""
    raw = _json("prices", raw) or {}
    if isinstance(raw, str):
        parsed: dict[str, Any] = {}
        for part in (p.strip() for p in raw.split(";")):
            if part:
                model, _, pair = part.rpartition("=")
                parsed[model.strip()] = pair.replace("/", ",").split(",")
        raw = parsed
    prices = {}
    for model, pair in dict(raw).items():
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise ConfigError(f"price of {model} must be [input, output] USD per 1M tokens",
                              "e.g. --price openai/my-model=0.15,0.60")
        prices[str(model)] = Price(_decimal("prices", pair[0]), _decimal("prices", pair[1]))
    return prices


def _int(name: str, raw: Any, default: int, lo: int, hi: int) -> int:
    if raw is None:
        return default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"option {name}={raw!r} is not an integer") from None
    if not lo <= value <= hi:
        raise ConfigError(f"option {name}={value} outside {lo}..{hi}")
    return value


def parse_options(options: Mapping[str, Any]) -> CatalogueOptions:
    """Validate and normalise catalogue run options; :class:`ConfigError` names a bad one."""
    unknown = sorted(set(options) - set(OPTION_KEYS))
    if unknown:
        raise ConfigError(f"the catalogue has no option {', '.join(unknown)}",
                          f"known options: {', '.join(OPTION_KEYS)}")
    if not options.get("models"):
        raise ConfigError("a catalogue needs at least one model",
                          "pass --model provider/model[=weight] (a litellm model string)")
    models = _models(options["models"])
    fallback = tuple(m for m in _names("fallback", options.get("fallback") or [], None)) \
        if options.get("fallback") else ()
    budget = options.get("budget_usd")
    return CatalogueOptions(
        models=models,
        fallback=fallback,
        budget_usd=None if budget in (None, "") else _decimal("budget_usd", budget),
        max_tokens=_int("max_tokens", options.get("max_tokens"), 120, 8, 8192),
        prices=_prices(options.get("prices")),
        kinds=_names("kinds", options.get("kinds") or list(KINDS), KINDS),
        lines=_names("lines", options.get("lines") or list(LINES), LINES),
        locales=_names("locales", options.get("locales") or list(DEFAULT_LOCALES), LOCALES),
        variants=_int("variants", options.get("variants"), 3, 1, 1000),
        quarantine_after=_int("quarantine_after", options.get("quarantine_after"), 5, 1, 1000),
        max_models_per_item=_int("max_models_per_item", options.get("max_models_per_item"),
                                 2, 1, 10),
        prompt_version=str(options.get("prompt_version") or PROMPT_VERSION),
    )
