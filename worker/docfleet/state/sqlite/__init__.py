"""The SQLite backend (``sqlite:///path``, the embedded default): :mod:`.store`
(coordination, and :class:`SQLiteStateStore`, both halves), :mod:`.ledger`, :mod:`.client`
(connections, schema, retries), :mod:`.init` (``store init``), :mod:`.instrument`
(operation counts). Named by its entry in :mod:`docfleet.core.backends`."""
