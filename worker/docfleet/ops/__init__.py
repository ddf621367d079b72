"""Operator tools over runs: status, repair, report, local fleets, launch, store init, dry runs."""
