"""A capture page's point map rebuilt from the parameters its ``pages`` row records —
nothing else — so the capture tests (invoice and the other packs) prove that the recorded
difficulty labels are enough to carry every box."""

from __future__ import annotations

import math
from typing import Any

from docfleet.render.capture import homography


def _corners(w: float, h: float) -> list[tuple[float, float]]:
    return [(0, 0), (w, 0), (w, h), (0, h)]


def geometry(page: dict[str, Any]) -> tuple[float, ...]:
    """The 3x3 projective map (row-major) of a ``pages`` row: the photo's perspective, the
    fax's rotation and shift, the identity for a condition that moves nothing."""
    w, h = page["width"], page["height"]
    if page["condition"] == "photo":
        q = page["perspective"]
        return homography(_corners(w, h), [(q[i], q[i + 1]) for i in range(0, 8, 2)])
    if page["condition"] == "fax":
        t = math.radians(page["angle"])
        dst = []
        for x, y in _corners(w, h):
            dx, dy = x - w / 2, y - h / 2
            dst.append((w / 2 + dx * math.cos(t) + dy * math.sin(t) + page["shift_x"],
                        h / 2 - dx * math.sin(t) + dy * math.cos(t) + page["shift_y"]))
        return homography(_corners(w, h), dst)
    return (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
