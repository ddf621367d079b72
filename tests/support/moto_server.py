"""moto served single-threaded: one request at a time, so a conditional write is atomic.

The stock ``moto_server`` is threaded and lets two conditional writers both win; this
script wraps moto's app in werkzeug's ``run_simple(..., threaded=False)``.

Usage: ``python tests/support/moto_server.py PORT`` (binds 127.0.0.1).
"""

from __future__ import annotations

import os
import signal
import sys

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from moto.server import MotoRequestHandler
from werkzeug.serving import run_simple


def main() -> None:
    port = int(sys.argv[1])
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))  # at once, even mid-select
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(
        "127.0.0.1", port, app, threaded=False, processes=1, use_reloader=False,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main()
