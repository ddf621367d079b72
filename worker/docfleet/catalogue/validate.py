"""Validation of an answer: JSON schema, length, language, PII-like patterns, emptiness.
A rejected answer becomes procedural text for that item, with the reason recorded."""

from __future__ import annotations

import json
import re

from docfleet.catalogue.plan import Item

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
URL = re.compile(r"(https?://|www\.)\S+|\b[\w-]+\.(com|net|org|io|biz|info|de|fr|co\.uk|uk)\b",
                 re.IGNORECASE)
PHONE = re.compile(r"\+?\(?\d[\d\s().-]{6,}\d")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split(" "))


STOPWORDS: dict[str, frozenset[str]] = {
    "en": _words("the and for of to with your our in on is are by at from we you this "
                    "all within days please thank"),
    "fr": _words("le la les des de du et pour en un une vos votre nos notre sur avec dans "
                    "est par au aux sous jours merci veuillez"),
    "de": _words("der die das und für mit von zu im ist ein eine den dem des auf bei nach "
                    "ihr ihre unsere wir sie innerhalb tagen bitte vielen dank"),
}
ACCENTS = {"fr": set("éèêàçœùâîô"), "de": set("äöüß")}
MIN_CHARS = 3


class Rejected(ValueError):
    """An answer that fails validation; ``reason`` is short and stable (e.g. ``pii``)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def _strip_fences(content: str) -> str:
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text.removeprefix("json").strip()
    return text


def language_scores(text: str) -> dict[str, int]:
    words = re.findall(r"[^\W\d_]+", text.lower())
    scores = {lang: sum(w in stop for w in words) for lang, stop in STOPWORDS.items()}
    for lang, chars in ACCENTS.items():
        scores[lang] += sum(c in chars for c in text.lower())
    return scores


def validate_answer(content: str | None, item: Item) -> str:
    """Return the item's text from a model's answer, or raise :class:`Rejected` with reason
    ``empty`` | ``schema`` | ``length`` | ``language`` | ``pii``."""
    if content is None or not content.strip():
        raise Rejected("empty")
    try:
        obj = json.loads(_strip_fences(content))
    except ValueError:
        raise Rejected("schema", "not JSON") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        raise Rejected("schema", 'not {"text": string}')
    text = " ".join(obj["text"].split())
    if not text:
        raise Rejected("empty")
    if not MIN_CHARS <= len(text) <= item.max_chars:
        raise Rejected("length", f"{len(text)} chars, want {MIN_CHARS}-{item.max_chars}")
    if EMAIL.search(text) or URL.search(text) or PHONE.search(text):
        raise Rejected("pii", "looks like an e-mail, URL or phone number")
    scores = language_scores(text)
    want = item.language
    best = max(scores, key=lambda k: scores[k])
    if best != want and scores[best] > scores[want]:
        raise Rejected("language", f"reads as {best}, want {want}")
    return text
