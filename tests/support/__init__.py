"""Shared test support: emulator servers and their pytest fixtures, the backend factories,
``require``, fleet and chaos helpers, the local fake HTTP services, PDF and capture helpers,
and the one-line-error assertion. Importable as ``support`` from the tests (pytest puts
``tests/`` on ``sys.path``) and from ``bench/`` (``scripts/setup-dev`` adds ``tests/`` to
the dev venv's path)."""
