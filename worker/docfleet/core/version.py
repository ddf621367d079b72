"""docfleet's version (the package's, ``pyproject.toml``): what telemetry reports as
``service.version`` and ``docfleet.__version__`` re-exports."""

__version__ = "0.1.0"
