"""The Firestore backend (``firestore://PROJECT[/DATABASE]?prefix=…``, extra ``gcp``):
:mod:`.store` (coordination, and :class:`FirestoreStateStore`, both halves), :mod:`.ledger`,
:mod:`.client` (client, paths, compare-and-set, retries), :mod:`.schema` (collections,
indexes), :mod:`.init` (``store init``), :mod:`.instrument` (operation counts). Named by
its entry in :mod:`docfleet.core.backends`."""
