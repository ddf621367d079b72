"""The unit transition rules every state store applies (docs/design.md, "The coordination
contract", items 3 to 5), written once.

A rule decides a transition's target state and fields; the backend applies it inside its
own atomic write (an SQLite transaction, a Firestore compare-and-set, a DynamoDB
conditional update, one PostgreSQL statement), so atomicity stays the backend's. The
Python stores (Firestore, DynamoDB) call the functions; the SQL stores (SQLite,
PostgreSQL) put the ``sql_*`` forms of the same rules in their statements, built from the
same constants. ``tests/contract/test_state_rules.py`` holds the two forms to the same
answers and fails if a backend writes one of these rules itself.

The rules:

* **final attempt**: a unit that fails, or whose lease is reclaimed, on its last attempt
  (``attempts >= max_attempts``; the claim counted the attempt) is FAILED for good and
  stamped ``finished_at``; before that it goes back to PENDING with its attempts kept;
* **error text**: a unit stores at most :data:`ERROR_LIMIT` characters of an error;
* **lease expired**: a reclaim that ends a unit for good records
  :func:`lease_expired_error`; a reclaim that returns it to the pool keeps its last error;
* **release**: a release on shutdown gives the attempt back (never below zero);
* **reopen**: only DONE or FAILED units are reopened, with their attempts reset.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from dataclasses import dataclass

from docfleet.core.models import UnitState

#: Characters of an error (or a reopen reason) a unit stores.
ERROR_LIMIT = 2000
#: The states :meth:`~docfleet.state.base.CoordinationStore.reopen_units` reopens.
REOPENABLE: tuple[UnitState, ...] = (UnitState.DONE, UnitState.FAILED)

# The one text of a unit whose lease ran out on its last attempt. ``why`` is empty for a
# lease judged expired by a clock, "not renewed; " for one seen unrenewed for a lease.
_LEASE_EXPIRED = "lease expired after {attempts} attempts ({why}last owner {owner})"
_NOT_RENEWED = "not renewed; "


@dataclass(frozen=True)
class AttemptEnd:
    """How an attempt that did not complete ends: the unit's next ``state`` (FAILED for
    good when ``final``, else PENDING with its attempts kept) and what its ``last_error``
    becomes (``None``: left as it is). A final end also stamps ``finished_at``."""

    state: UnitState
    final: bool
    last_error: str | None


def cut_error(text: str) -> str:
    """The first :data:`ERROR_LIMIT` characters of ``text``: what a unit stores."""
    return text[:ERROR_LIMIT]


def is_final_attempt(attempts: int, max_attempts: int) -> bool:
    """Whether a unit that has made ``attempts`` attempts (this one counted) ends for good
    when this attempt fails or its lease is reclaimed."""
    return attempts >= max_attempts


def after_attempt(attempts: int, max_attempts: int) -> UnitState:
    """The state a failed or reclaimed attempt leaves: FAILED on the last, else PENDING."""
    return UnitState.FAILED if is_final_attempt(attempts, max_attempts) else UnitState.PENDING


def failed_attempt(attempts: int, max_attempts: int, error: str) -> AttemptEnd:
    """``fail_unit``: the unit records ``error`` (cut) whether it ends or goes back."""
    return AttemptEnd(after_attempt(attempts, max_attempts),
                      is_final_attempt(attempts, max_attempts), cut_error(error))


def lease_expired_error(attempts: int, owner: object, *, not_renewed: bool = False) -> str:
    """The error of a unit whose lease ran out on its last attempt. ``not_renewed``: the
    reclaimer saw it unrenewed for a whole lease (``reclaim_stale_units``) rather than
    compared a clock with its expiry (``reclaim_expired_units``)."""
    return _LEASE_EXPIRED.format(attempts=attempts, owner=owner,
                                 why=_NOT_RENEWED if not_renewed else "")


def expired_lease(attempts: int, max_attempts: int, owner: object, *,
                  not_renewed: bool = False) -> AttemptEnd:
    """A reclaim: FAILED with :func:`lease_expired_error` on the last attempt, else
    PENDING with the last error kept."""
    final = is_final_attempt(attempts, max_attempts)
    return AttemptEnd(after_attempt(attempts, max_attempts), final,
                      lease_expired_error(attempts, owner, not_renewed=not_renewed)
                      if final else None)


def released_attempts(attempts: int) -> int:
    """The attempts a unit keeps after a release on shutdown: the claim's is given back."""
    return max(attempts - 1, 0)


# -- the same rules as SQL expressions (SQLite and PostgreSQL share this syntax) -----------
def sql_is_final_attempt(attempts: str, max_attempts: str) -> str:
    """:func:`is_final_attempt` over the SQL expressions ``attempts`` and ``max_attempts``
    (a column, a placeholder such as ``:max_attempts`` or ``%(max)s``)."""
    return f"{attempts} >= {max_attempts}"


def sql_after_attempt(attempts: str, max_attempts: str) -> str:
    """:func:`after_attempt` as a ``CASE`` expression."""
    return (f"CASE WHEN {sql_is_final_attempt(attempts, max_attempts)}"
            f" THEN '{UnitState.FAILED.value}' ELSE '{UnitState.PENDING.value}' END")


def sql_if_final(attempts: str, max_attempts: str, then: str, otherwise: str) -> str:
    """``then`` on the last attempt, else ``otherwise`` (e.g. stamp ``finished_at``)."""
    return (f"CASE WHEN {sql_is_final_attempt(attempts, max_attempts)}"
            f" THEN {then} ELSE {otherwise} END")


def sql_lease_expired_error(attempts: str, owner: str, *, not_renewed: bool = False) -> str:
    """:func:`lease_expired_error` as a ``||`` concatenation of the SQL expressions
    ``attempts`` and ``owner`` (NULL if the owner is NULL, as SQL concatenation is)."""
    values = {"attempts": attempts, "owner": owner}
    parts: list[str] = []
    text = ""
    for literal, field, _, _ in string.Formatter().parse(_LEASE_EXPIRED):
        text += literal
        if field == "why":
            text += _NOT_RENEWED if not_renewed else ""
        elif field is not None:
            if text:
                parts.append(_sql_literal(text))
            parts.append(values[field])
            text = ""
    if text:
        parts.append(_sql_literal(text))
    return " || ".join(parts)


def sql_released_attempts(attempts: str, greatest: str = "MAX") -> str:
    """:func:`released_attempts`; ``greatest`` is the dialect's two-argument maximum
    (SQLite ``MAX``, PostgreSQL ``GREATEST``)."""
    return f"{greatest}({attempts} - 1, 0)"


def sql_states(states: Iterable[UnitState]) -> str:
    """An SQL list of states, e.g. ``('DONE', 'FAILED')`` for :data:`REOPENABLE`."""
    return "(" + ", ".join(_sql_literal(s.value) for s in states) + ")"


def _sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
