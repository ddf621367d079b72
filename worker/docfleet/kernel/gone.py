"""The run deleted under a task (``docfleet delete --force`` while its fleet works): the
latch every role of the task reads (:class:`RunGone`). The drain loop, the plan wait and
the finalizer election check it where they read the run; the first check that finds
the run gone says so in one ``run.gone`` line, sets the task's stop, and from then on
the task writes nothing more and exits :data:`docfleet.kernel.exits.EXIT_GONE`."""

from __future__ import annotations

import logging
import threading

from docfleet.core.models import Run
from docfleet.state.base import CoordinationStore


class RunGone:
    """Whether run ``run_id`` is gone from ``store``; ``stop`` is the task's stop event."""

    def __init__(self, store: CoordinationStore, run_id: str, stop: threading.Event,
                 log: logging.Logger) -> None:
        self.store = store
        self.run_id = run_id
        self.stop = stop
        self.log = log
        #: Set once a check found the run deleted; never cleared.
        self.gone = False

    def check(self, run: Run | None = None, *, read: bool = True) -> bool:
        """Whether the run was deleted from the state store while this task worked: read
        now unless ``read`` is false (then ``run`` is the run as just read). Says so in
        one line, once, and sets the stop; the task then writes nothing more."""
        if read:
            run = self.store.get_run(self.run_id)
        if run is not None:
            return False
        if not self.gone:
            self.gone = True
            self.stop.set()
            self.log.error("run %s is gone from %s (deleted while this task worked): "
                           "stopping; this task writes nothing more", self.run_id,
                           self.store.uri, extra={"event": "run.gone"})
        return True
