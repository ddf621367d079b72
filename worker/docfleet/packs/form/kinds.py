"""The six kinds of form and what each asks, section by section. A block is one of:
``("row", keys)`` (one to three questions side by side), ``("date", key)`` (a date
written in boxes, one per character), ``("choice", group, multi)`` (a checkbox group if
``multi``, else a radio group), ``("grid", group)`` (a yes/no grid, one radio row per
item), ``("comment", key)`` (a multi-line box) and ``("sign",)`` (declaration, place,
date, signature and an office stamp area)."""

from __future__ import annotations

Block = tuple
#: form kind → ((section key, (block, …)), …)
KINDS: dict[str, tuple[tuple[str, tuple[Block, ...]], ...]] = {
    "account": (
        ("personal", (("choice", "title", False), ("row", ("given_name", "family_name")),
                      ("date", "birth_date"), ("row", ("birth_place", "nationality")),
                      ("choice", "marital", False))),
        ("contact", (("row", ("street",)), ("row", ("postcode", "city")),
                     ("row", ("phone",)), ("row", ("email",)),
                     ("choice", "contact", True))),
        ("work", (("row", ("occupation", "employer")), ("row", ("monthly_income",)))),
        ("account", (("choice", "account_type", True), ("choice", "statements", False),
                     ("row", ("id_number",)))),
        ("declaration", (("comment", "comments"), ("sign",))),
    ),
    "registration": (
        ("personal", (("choice", "title", False), ("row", ("given_name", "family_name")),
                      ("row", ("company_name",)), ("row", ("customer_number",)))),
        ("contact", (("row", ("street",)), ("row", ("postcode", "city")),
                     ("row", ("phone",)), ("row", ("email",)),
                     ("choice", "contact", True), ("choice", "newsletter", False))),
        ("declaration", (("comment", "comments"), ("sign",))),
    ),
    "claim": (
        ("policy", (("row", ("policy_number",)), ("row", ("given_name", "family_name")),
                    ("row", ("phone",)), ("row", ("email",)))),
        ("incident", (("date", "incident_date"), ("row", ("incident_place",)),
                      ("choice", "incident_type", False), ("choice", "police", False),
                      ("comment", "description"), ("row", ("estimated_amount",)))),
        ("declaration", (("sign",),)),
    ),
    "onboarding": (
        ("personal", (("row", ("given_name", "family_name")), ("date", "birth_date"),
                      ("row", ("nationality", "id_number")), ("choice", "marital", False))),
        ("contact", (("row", ("street",)), ("row", ("postcode", "city")),
                     ("row", ("phone",)), ("row", ("email",)))),
        ("job", (("row", ("position", "department")), ("date", "start_date"),
                 ("choice", "contract", False))),
        ("emergency", (("row", ("emergency_contact",)), ("row", ("emergency_phone",)))),
        ("declaration", (("sign",),)),
    ),
    "customs": (
        ("shipment", (("row", ("given_name", "family_name")), ("row", ("street",)),
                      ("row", ("postcode", "city")), ("row", ("consignee",)),
                      ("choice", "category", True), ("row", ("goods", "quantity")),
                      ("row", ("declared_value", "origin")), ("comment", "comments"))),
        ("declaration", (("sign",),)),
    ),
    "medical": (
        ("personal", (("row", ("given_name", "family_name")), ("date", "birth_date"),
                      ("row", ("phone",)), ("row", ("email",)))),
        ("insurance", (("row", ("insurer", "insurance_number")), ("row", ("doctor",)))),
        ("health", (("grid", "history"), ("comment", "medications"))),
        ("declaration", (("sign",),)),
    ),
}
