"""Logging: JSON lines that Cloud Logging understands when not on a terminal, readable
text on one. Every line carries the run id and the task index."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from docfleet.telemetry import log_fields

LOGGER_NAME = "docfleet"
_context: dict[str, Any] = {}

_RESERVED = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message"}


def bind(**fields: Any) -> None:
    """Attach fields (run_id, task_index, …) to every later log line of this process."""
    _context.update({k: v for k, v in fields.items() if v is not None})


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "severity": record.levelname,
            "message": record.getMessage(),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "logger": record.name,
            **_context,
            **log_fields(),
        }
        for key, value in record.__dict__.items():
            if key not in _RESERVED and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%H:%M:%S", time.localtime(record.created))
        task = _context.get("task_index")
        who = f"task {task}" if task is not None else "docfleet"
        line = f"{stamp} {who} {record.levelname.lower():7} {record.getMessage()}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def setup_logging(fmt: str = "auto", level: str = "INFO") -> logging.Logger:
    """Configure the ``docfleet`` logger to write to stdout. ``fmt`` is auto|json|text."""
    use_json = fmt == "json" or (fmt == "auto" and not sys.stdout.isatty())
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonFormatter() if use_json else TextFormatter())
    logger = logging.getLogger(LOGGER_NAME)
    logger.handlers[:] = [handler]
    logger.setLevel(level)
    logger.propagate = False
    return logger


def get_logger() -> logging.Logger:
    return logging.getLogger(LOGGER_NAME)
