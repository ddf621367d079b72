"""The state-store contract (docs/design.md, "The coordination contract"), in two halves:
:class:`CoordinationStore` (runs and units: the kernel's) and :class:`LedgerStore` (spend,
quarantine and budget reservations: the catalogue's). Every backend implements both, i.e.
:class:`StateStore`; ``tests/contract/`` runs one suite against all of them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from docfleet.core.errors import RunConflictError
from docfleet.core.models import Claim, Progress, Run, RunSpec, RunState, Unit

#: The key of the all-models total in the spend rollup.
TOTAL_SPEND_KEY = "__total__"


@dataclass(frozen=True)
class BudgetState:
    """A run's budget ledger: settled spend (the rollup total) and what live reservations
    hold, in integer nano-dollars."""

    spent_nano: int
    reserved_nano: int
    reservations: int


@dataclass(frozen=True)
class CreateResult:
    """Outcome of :meth:`CoordinationStore.create_run`: ``won`` is true for exactly one caller."""

    won: bool
    run: Run


@runtime_checkable
class CoordinationStore(Protocol):
    """The coordination contract: runs, their plan, units, leases, progress, the finalizer
    lease, and listing/deleting runs. What the kernel (worker, planner, finalize, repair,
    fleet view, commands) relies on. Times are epoch seconds from the caller's clock
    (:func:`docfleet.core.clock.now`); every method is safe to call from many processes."""

    uri: str

    # -- runs -------------------------------------------------------------------------
    def create_run(self, spec: RunSpec, planner: str, now: float) -> CreateResult:
        """Conditionally create the run marker. Exactly one concurrent caller gets
        ``won=True``. Raises :class:`RunConflictError` if the run exists with another
        fingerprint."""
        ...

    def take_over_plan(self, run_id: str, planner: str, stale_before: float, now: float) -> bool:
        """Become the planner of an unplanned run whose plan heartbeat is older than
        ``stale_before``. Atomic: at most one caller takes over one stale marker."""
        ...

    def touch_plan(self, run_id: str, planner: str, now: float) -> bool:
        """Refresh the plan heartbeat; false if ``planner`` no longer holds the plan."""
        ...

    def put_units(self, run_id: str, units: Iterable[Unit]) -> None:
        """Write PENDING units. Idempotent: a unit that already exists is left as it is."""
        ...

    def mark_planned(self, run_id: str, planner: str, now: float) -> bool:
        """Set ``planned`` and move the run to RUNNING; false if ``planner`` lost the plan."""
        ...

    def get_run(self, run_id: str) -> Run | None: ...

    def set_run_state(
        self, run_id: str, state: RunState, now: float, expected: Iterable[RunState] | None = None
    ) -> bool:
        """Set the run's state, only from one of ``expected`` if given. Returns whether
        it changed. Raises :class:`RunNotFoundError` for an unknown run."""
        ...

    # -- units ------------------------------------------------------------------------
    def claim_next_unit(
        self, run_id: str, owner: str, hint: int, lease_seconds: float, now: float
    ) -> Claim | None:
        """Atomically move one PENDING unit to RUNNING under a fresh lease and return the
        claim, starting the search at unit index ``hint``; ``None`` when nothing is
        PENDING. A lost race moves on to the next candidate."""
        ...

    def renew_lease(self, claim: Claim, lease_seconds: float, now: float) -> Claim | None:
        """Extend a live lease. Fenced on ``claim.token``: ``None`` if the claim is stale."""
        ...

    def complete_unit(self, claim: Claim, part_sha256: str, now: float) -> bool:
        """RUNNING → DONE, recording the part's sha256. Fenced: false if stale."""
        ...

    def fail_unit(self, claim: Claim, error: str, max_attempts: int, now: float) -> bool:
        """RUNNING → PENDING, or FAILED for good once ``attempts >= max_attempts``.
        Fenced: false if stale."""
        ...

    def release_unit(self, claim: Claim, now: float) -> bool:
        """RUNNING → PENDING at once (shutdown); does not count as an attempt. Fenced."""
        ...

    def reclaim_expired_units(self, run_id: str, max_attempts: int, now: float) -> int:
        """Return every RUNNING unit whose lease expired to PENDING (or FAILED past
        ``max_attempts``). Returns how many units it moved."""
        ...

    def reset_failed_units(self, run_id: str, now: float) -> int:
        """FAILED → PENDING with attempts reset. Returns how many."""
        ...

    def running_units(self, run_id: str) -> list[Unit]:
        """The RUNNING units of the run, each with ``index`` and its lease as stored:
        ``lease_expires_at`` (every renewal writes a new value, so it doubles as a renewal
        counter) and ``lease_owner`` where the backend returns it cheaply (else ``None``).
        One query over RUNNING units only (their number is bounded by the task count)."""
        ...

    def reclaim_stale_units(
        self, run_id: str, stale: Iterable[Unit], max_attempts: int, now: float
    ) -> int:
        """For each unit of ``stale`` (as :meth:`running_units` returned it): RUNNING →
        PENDING (FAILED once ``attempts >= max_attempts``) only if it still holds that very
        lease: the same ``lease_expires_at`` (not renewed since it was observed) and, when
        given, the same ``lease_owner``. One conditional write per unit. The caller judges
        staleness by its own monotonic clock (:class:`docfleet.kernel.lease.LeaseWatch`); no clock
        is compared here, so a writer's skewed clock cannot strand or steal a lease.
        ``now`` only stamps ``finished_at``. Returns how many units it moved."""
        ...

    def reopen_units(self, run_id: str, indexes: Iterable[int], reason: str, now: float) -> int:
        """DONE or FAILED → PENDING with attempts reset, for units whose outputs were found
        missing or damaged (a gap). Returns how many."""
        ...

    def progress(self, run_id: str) -> Progress:
        """Unit counts by state, from counters the transitions keep (a SQL count on the SQL
        stores): O(1) store operations whatever the run's size, exact at rest (every
        transition moves its counter in the same atomic write). A hint for pacing and
        display only, never proof: finalize proves every unit DONE from the units."""
        ...

    def claim_finalizer(self, run_id: str, owner: str, lease_seconds: float, now: float
                        ) -> bool:
        """Become the one task that finishes a drained run (finalize, or name its holes):
        atomically take the run's finalizer lease if it is free (never taken, or expired
        before ``now``) or already ``owner``'s (then renew it to ``now + lease_seconds``).
        True for at most one live owner at a time; ``lease_seconds=0`` by the owner hands
        it back. O(1) store operations."""
        ...

    def units(self, run_id: str) -> list[Unit]:
        """Every unit of the run, by index."""
        ...

    # -- administration (docfleet list / delete) ---------------------------------------
    def list_runs(self) -> list[Run]:
        """Every run marker in the store, by run id (reads the whole run collection: for
        ``docfleet list``, never for tasks)."""
        ...

    def delete_run(self, run_id: str) -> bool:
        """Remove the run marker and everything the store holds for it (units, spend,
        quarantine, reservations). Idempotent; true if the run existed. Not atomic on
        the cloud stores: the marker goes last, so an interrupted delete can be repeated."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class LedgerStore(Protocol):
    """The ledger contract: a run's LLM spend rollup, provider quarantine and fleet budget
    reservations, in integer nano-dollars. What the catalogue relies on. Every method is
    safe to call from many processes."""

    uri: str

    # -- spend and quarantine ---------------------------------------------------------
    def add_spend(self, run_id: str, model: str, nano_dollars: int) -> None:
        """Atomically add to the (run, model) rollup and to the run's total."""
        ...

    def total_spend(self, run_id: str) -> int: ...

    def spend_by_model(self, run_id: str) -> dict[str, int]: ...

    def quarantine_providers(self, run_id: str, providers: Iterable[str]) -> None:
        """Add providers to the run's quarantine set (idempotent)."""
        ...

    def quarantined_providers(self, run_id: str) -> set[str]: ...

    # -- fleet budget (reserve → call → settle) ---------------------------------------
    def reserve_budget(
        self, run_id: str, reservation_id: str, nano: int, cap_nano: int, expires_at: float
    ) -> bool:
        """Atomically hold ``nano`` for one call (or a block of calls): succeeds only if
        spent + reserved + ``nano`` <= ``cap_nano`` (one conditional write). Idempotent
        per ``reservation_id``: holding it already returns true without holding more."""
        ...

    def settle_reservation(
        self, run_id: str, reservation_id: str, spend: Mapping[str, int]
    ) -> bool:
        """Atomically drop the reservation and add ``spend`` (model → actual nano-dollars)
        to the rollup, per model and in total. The spend is added even when the
        reservation is gone (it expired and was released): money spent is recorded.
        Returns whether the reservation was still held. Call once per reservation."""
        ...

    def release_expired_reservations(self, run_id: str, now: float) -> int:
        """Drop every reservation whose ``expires_at`` < ``now`` (a killed task's hold).
        Returns how many."""
        ...

    def budget_state(self, run_id: str) -> BudgetState:
        """Settled spend and live reservations of the run (zeros for an unknown run)."""
        ...


@runtime_checkable
class StateStore(CoordinationStore, LedgerStore, Protocol):
    """Both contracts: what every backend implements and :func:`open_state_store`
    returns. Code that needs only one side types against :class:`CoordinationStore` or
    :class:`LedgerStore`."""


def check_fingerprint(run: Run, spec: RunSpec) -> None:
    """Raise :class:`RunConflictError` when ``spec`` differs from the stored run's."""
    if run.fingerprint == spec.fingerprint():
        return
    stored = run.spec.parameters()
    asked = spec.parameters()
    diffs = ", ".join(
        f"{k}: stored {stored.get(k)!r} vs given {asked.get(k)!r}"
        for k in sorted(set(stored) | set(asked))
        if stored.get(k) != asked.get(k)
    )
    raise RunConflictError(
        f"run '{spec.run_id}' already exists with other parameters ({diffs})",
        "use a new --run-id, or repeat the original parameters to resume it",
    )
