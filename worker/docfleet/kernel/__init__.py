"""One task's life: plan race, claims, units, leases, finalize."""
