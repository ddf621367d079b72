"""The DynamoDB backend (``dynamodb://TABLE?region=…``, extra ``aws``): :mod:`.store`
(coordination, and :class:`DynamoDBStateStore`, both halves), :mod:`.ledger`,
:mod:`.client` (table, conditional writes, layouts, retries), :mod:`.schema` (the table,
keys and unit layout), :mod:`.init` (``store init``), :mod:`.instrument` (operation
counts). Named by its entry in :mod:`docfleet.core.backends`."""
