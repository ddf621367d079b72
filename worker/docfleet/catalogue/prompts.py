"""Prompts: one chat request per item, asking for a JSON object ``{"text": "..."}``."""

from __future__ import annotations

from docfleet.catalogue.plan import KINDS, LINES, LOCALES, Item

SYSTEM = (
    "You write realistic text for business invoices. Answer with one JSON object "
    '{"text": "..."} and nothing else. Never include e-mail addresses, phone numbers, '
    "web addresses, personal names or real company names."
)


def build_messages(item: Item, prompt_version: str) -> list[dict[str, str]]:
    """The chat messages for ``item`` (deterministic; the version tags the wording)."""
    what, max_chars = KINDS[item.kind]
    language = LOCALES[item.locale][1]
    user = (
        f"Write {what} for a seller of {LINES[item.line]}.\n"
        f"locale: {item.locale}\nlanguage: {language}\n"
        f"at most {max_chars} characters, no quotes inside, variant {item.variant + 1}.\n"
        f"prompt: {prompt_version}"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
