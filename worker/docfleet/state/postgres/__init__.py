"""The PostgreSQL backend (``postgresql://USER@HOST:5432/DB?schema=S``, extra ``postgres``):
:mod:`.store` (coordination and its statements, and :class:`PostgresStateStore`, both
halves), :mod:`.ledger`, :mod:`.client` (connections, timeouts, watchdog, retries),
:mod:`.schema` (migrations, schema version 3), :mod:`.init` (``store init``),
:mod:`.instrument` (operation counts). Named by its entry in :mod:`docfleet.core.backends`."""
