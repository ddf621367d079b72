"""The unit transition rules live in one module (``docfleet.state.rules``): its Python and
SQL forms give the same answers, and no backend of the registry writes the final-attempt
rule, the lease-expired text or the error cut itself. (That every backend *behaves* by the
rules is the contract suite's job.)"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import re
import sqlite3
from pathlib import Path

import pytest

from docfleet.core import backends as registry
from docfleet.core.models import UnitState
from docfleet.state import rules


def _backend_sources() -> dict[str, str]:
    """Every registry backend's source, its folder ``state/<backend>/`` (every module of
    it but ``schema.py``, whose layout constants are no transition: one text), by folder
    name (nothing imported)."""
    out = {}
    for entry in registry.BACKENDS:
        module = entry.opener.partition(":")[0]
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin, module
        folder = Path(spec.origin).parent
        assert folder.parent.name == "state", folder  # one folder per backend
        out[folder.name] = "\n".join(p.read_text() for p in sorted(folder.glob("*.py"))
                                     if p.name != "schema.py")
    return out


# -- the two forms agree --------------------------------------------------------------------
def test_python_and_sql_forms_of_the_rules_agree() -> None:
    db = sqlite3.connect(":memory:")
    for attempts, max_attempts, not_renewed in itertools.product(range(5), range(1, 4),
                                                                 (False, True)):
        owner = f"task-{attempts}#u1.g{attempts}"
        row = db.execute(
            f"SELECT {rules.sql_after_attempt('a', 'm')},"
            f" {rules.sql_is_final_attempt('a', 'm')},"
            f" {rules.sql_if_final('a', 'm', rules.sql_lease_expired_error('a', 'o', not_renewed=not_renewed), 'NULL')},"  # noqa: E501
            f" {rules.sql_released_attempts('a')}"
            " FROM (SELECT ? AS a, ? AS m, ? AS o)", (attempts, max_attempts, owner)).fetchone()
        end = rules.expired_lease(attempts, max_attempts, owner, not_renewed=not_renewed)
        assert row == (end.state.value, int(end.final), end.last_error,
                       rules.released_attempts(attempts))
        assert end.state is rules.after_attempt(attempts, max_attempts)
        failed = rules.failed_attempt(attempts, max_attempts, "boom")
        assert (failed.state, failed.final, failed.last_error) == (end.state, end.final, "boom")
    for state in UnitState:
        inside = db.execute(f"SELECT ? IN {rules.sql_states(rules.REOPENABLE)}",
                            (state.value,)).fetchone()[0]
        assert bool(inside) == (state in rules.REOPENABLE)


def test_the_rules_say_what_the_contract_says() -> None:
    assert rules.after_attempt(2, 3) is UnitState.PENDING
    assert rules.after_attempt(3, 3) is UnitState.FAILED
    assert rules.expired_lease(1, 3, "w").last_error is None  # back in the pool: kept
    assert rules.lease_expired_error(3, "w#u0.g3") == \
        "lease expired after 3 attempts (last owner w#u0.g3)"
    assert rules.lease_expired_error(3, "w#u0.g3", not_renewed=True) == \
        "lease expired after 3 attempts (not renewed; last owner w#u0.g3)"
    assert len(rules.cut_error("x" * 5000)) == rules.ERROR_LIMIT == 2000
    assert len(rules.failed_attempt(3, 3, "y" * 5000).last_error or "") == 2000
    assert rules.released_attempts(0) == 0 and rules.released_attempts(2) == 1
    assert set(rules.REOPENABLE) == {UnitState.DONE, UnitState.FAILED}
    # a quote in the message template would be escaped, never break the statement
    assert rules._sql_literal("it's") == "'it''s'"


# -- the only place -------------------------------------------------------------------------
#: An SQL comparison of a unit's attempts (``attempts >= :max``, ``e.attempts < run.max…``).
_SQL_ATTEMPTS_COMPARED = re.compile(r"\battempts\s*(>=|<=|<|>)\s*[:%(\w]")


def rule_copies(source: str, name: str) -> list[str]:
    """Where ``source`` writes a rule of :mod:`docfleet.state.rules` itself: a Python
    comparison with ``max_attempts``, an SQL comparison of ``attempts``, the lease-expired
    text, the error limit as a number."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(getattr(o, "id", getattr(o, "attr", None)) == "max_attempts"
                   for o in operands):
                found.append(f"{name}:{node.lineno} compares with max_attempts")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _SQL_ATTEMPTS_COMPARED.search(node.value):
                found.append(f"{name}:{node.lineno} compares attempts in SQL")
            if "lease expired" in node.value.lower():
                found.append(f"{name}:{node.lineno} writes the lease-expired text")
        elif isinstance(node, ast.Constant) and node.value == rules.ERROR_LIMIT:
            found.append(f"{name}:{node.lineno} cuts errors itself")
    return found


@pytest.mark.parametrize("snippet", [
    "final = int(d.get('attempts') or 0) >= max_attempts",
    "if claim.attempts >= max_attempts: pass",
    "SQL = \"UPDATE units SET state = CASE WHEN attempts >= :max_attempts THEN 'F' END\"",
    "SQL = f\"... AND e.attempts < run.max_attempts\"",
    "err = f'lease expired after {n} attempts'",
    "values = {':err': error[:2000]}",
])
def test_the_check_finds_each_kind_of_copy(snippet: str) -> None:
    assert rule_copies(snippet, "snippet.py"), snippet


def test_every_backend_takes_its_transition_rules_from_the_rules_module() -> None:
    sources = _backend_sources()
    assert len(sources) == len(registry.BACKENDS) >= 4
    for module, source in sources.items():
        assert re.search(r"^from docfleet\.state import (\w+, )*rules\b", source, re.M), module
        # the ledger's cap rule and settlement come from docfleet.state.budget, never a copy
        assert re.search(r"^from docfleet\.state import (\w+, )*budget\b", source, re.M), module
        assert "budget.fits(" in source or "budget.headroom(" in source, module
        assert not re.search(r"(>|<=?)\s*int\(cap_nano\)|int\(cap_nano\)\s*-", source), module
        assert "rules.expired_lease" in source or "rules.sql_lease_expired_error" in source, \
            module
        assert not rule_copies(source, module), rule_copies(source, module)


def test_every_backend_takes_its_codecs_and_retry_path_from_the_shared_modules() -> None:
    """One row -> unit mapping (``state/codecs.py``) and one retry and error translation
    path (``state/calls.py``): a backend folder builds no ``Unit``/``Claim`` by hand and
    runs no retry loop of its own over its store calls."""
    for folder, source in _backend_sources().items():
        assert "codecs.unit_from_record(" in source and "codecs.running_unit(" in source, folder
        assert not re.search(r"(?<![\w.])Unit\(", source), folder
        assert "StoreCalls(" in source, folder
        assert not re.search(r"\.(policy|_retry)\.call\(|Retrying\(", source), folder
