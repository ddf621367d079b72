"""The ``scan`` capture condition: rasterise a clean PDF, degrade it as a cheap scanner
would (skew, shift, blur, noise, JPEG), and re-wrap the pages as an image-only PDF with
no text layer. Every degradation is drawn from the document's seed, so a document scans
to the same bytes every time; every box goes through the same geometric transform
(:meth:`ScanParams.transform_box`) so it stays on its text.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium
from PIL import Image, ImageChops, ImageFilter

from docfleet.render.corners import Corners, Quad
from docfleet.render.imagepdf import ImagePage, image_pdf
from docfleet.render.layout import Box

DPI = 150


@dataclass(frozen=True)
class ScanParams:
    angle: float  # degrees, counter-clockwise
    shift: tuple[float, float]  # points
    blur: float  # Gaussian radius, px
    noise: int  # +- grey levels
    quality: int  # JPEG quality
    contrast: float  # 1.0 = unchanged

    @classmethod
    def draw(cls, seed: int) -> ScanParams:
        rng = random.Random(seed)
        return cls(
            angle=round(rng.uniform(-1.5, 1.5), 3),
            shift=(round(rng.uniform(-6, 6), 2), round(rng.uniform(-6, 6), 2)),
            blur=round(rng.uniform(0.3, 1.0), 2),
            noise=rng.randint(10, 28),
            quality=rng.randint(45, 80),
            contrast=round(rng.uniform(0.8, 1.0), 2),
        )

    def transform_point(self, x: float, y: float, width: float, height: float
                        ) -> tuple[float, float]:
        """Where point (x, y) (points, top-left origin) of a ``width``x``height`` page lands
        after the rotation about the page centre and the shift."""
        t = math.radians(self.angle)
        cx, cy = width / 2, height / 2
        dx, dy = x - cx, y - cy
        return (cx + dx * math.cos(t) + dy * math.sin(t) + self.shift[0],
                cy - dx * math.sin(t) + dy * math.cos(t) + self.shift[1])

    def transform_box(self, box: Box, width: float, height: float) -> Box:
        """The axis-aligned hull of ``box`` carried through the transform, clipped to the
        page."""
        x0, y0, x1, y1 = box
        pts = [self.transform_point(x, y, width, height)
               for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        return (round(max(0.0, min(xs)), 3), round(max(0.0, min(ys)), 3),
                round(min(width, max(xs)), 3), round(min(height, max(ys)), 3))

    def page_maps(self, width: float, height: float
                  ) -> tuple[Callable[[Box], Box], Callable[[Box], Quad], Corners]:
        """For a ``width`` x ``height`` page: :meth:`transform_box`; the corners TL, TR,
        BR, BL of a box through :meth:`transform_point`, each rounded to 3 decimals; and
        those corners unrounded for many boxes at once as Arrow arrays
        (:mod:`docfleet.render.corners`). The rotation's cosine and sine are computed
        once and every corner's sums are written out in the same order, so the same floats
        to the bit (a scanned page carries thousands of boxes: its glyphs')."""
        t = math.radians(self.angle)
        c, s = math.cos(t), math.sin(t)
        cx, cy = width / 2, height / 2
        sx, sy = self.shift

        def box(b: Box) -> Box:
            x0, y0, x1, y1 = b
            a0, a1, b0, b1 = x0 - cx, x1 - cx, y0 - cy, y1 - cy
            # the corners (x0, y0), (x1, y0), (x0, y1), (x1, y1), as transform_box
            xs = (cx + a0 * c + b0 * s + sx, cx + a1 * c + b0 * s + sx,
                  cx + a0 * c + b1 * s + sx, cx + a1 * c + b1 * s + sx)
            ys = (cy - a0 * s + b0 * c + sy, cy - a1 * s + b0 * c + sy,
                  cy - a0 * s + b1 * c + sy, cy - a1 * s + b1 * c + sy)
            return (round(max(0.0, min(xs)), 3), round(max(0.0, min(ys)), 3),
                    round(min(width, max(xs)), 3), round(min(height, max(ys)), 3))

        def quad(b: Box) -> Quad:
            x0, y0, x1, y1 = b
            a0, a1, b0, b1 = x0 - cx, x1 - cx, y0 - cy, y1 - cy
            return (round(cx + a0 * c + b0 * s + sx, 3), round(cy - a0 * s + b0 * c + sy, 3),
                    round(cx + a1 * c + b0 * s + sx, 3), round(cy - a1 * s + b0 * c + sy, 3),
                    round(cx + a1 * c + b1 * s + sx, 3), round(cy - a1 * s + b1 * c + sy, 3),
                    round(cx + a0 * c + b1 * s + sx, 3), round(cy - a0 * s + b1 * c + sy, 3))

        def corners(x: Any, y: Any) -> tuple[Any, Any]:
            import pyarrow.compute as pc  # lazy: only a scanned page's many boxes

            a, b = pc.subtract(x, cx), pc.subtract(y, cy)  # ((cx + a*c) + b*s) + sx, …
            return (pc.add(pc.add(pc.add(cx, pc.multiply(a, c)), pc.multiply(b, s)), sx),
                    pc.add(pc.add(pc.subtract(cy, pc.multiply(a, s)), pc.multiply(b, c)), sy))

        return box, quad, corners


def _degrade(image: Image.Image, params: ScanParams, rng: random.Random) -> Image.Image:
    scale = DPI / 72
    w, h = image.size
    grey = image if image.mode == "L" else image.convert("L")  # rotate makes its own
    grey = grey.rotate(params.angle, resample=Image.Resampling.BICUBIC, center=(w / 2, h / 2),
                       # Pillow takes sub-pixel offsets (an affine matrix); its stub says int
                       translate=(params.shift[0] * scale,  # type: ignore[arg-type]
                                  params.shift[1] * scale),
                       fillcolor=255)
    grey = grey.filter(ImageFilter.GaussianBlur(params.blur))
    lo = round(255 * (1 - params.contrast) * 0.6)
    grey = grey.point(lambda v: lo + v * (255 - lo) // 255)
    amp = params.noise
    noise = Image.frombytes("L", (w, h), rng.randbytes(w * h))
    noise = noise.point(lambda v: 128 + (v - 128) * amp // 128)
    return ImageChops.add(grey, noise, 1.0, -128)


def scan_pdf(clean: bytes, seed: int) -> tuple[bytes, ScanParams, list[tuple[float, float]]]:
    """Scan ``clean`` (a PDF) with degradations drawn from ``seed``. Returns the image
    PDF, the parameters (for carrying boxes) and each page's size in points."""
    params = ScanParams.draw(seed)
    rng = random.Random(seed ^ 0x5CA7)
    pages: list[ImagePage] = []
    sizes: list[tuple[float, float]] = []
    doc = pdfium.PdfDocument(clean)
    try:
        for i in range(len(doc)):
            page = doc[i]
            w, h = page.get_size()
            bitmap = page.render(scale=DPI / 72, grayscale=True)
            image = _degrade(bitmap.to_pil(), params, rng)
            buf = io.BytesIO()
            image.save(buf, "JPEG", quality=params.quality, optimize=False, progressive=False)
            pages.append(ImagePage(buf.getvalue(), image.size, (w, h), "DeviceGray", 8,
                                   "DCTDecode"))
            sizes.append((w, h))
            page.close()
    finally:
        doc.close()
    return image_pdf(pages), params, sizes


def scan_page_params(params: ScanParams) -> dict[str, object]:
    """The ``pages`` table's parameter columns for a scanned page."""
    return {"dpi": DPI, "angle": params.angle, "shift_x": params.shift[0],
            "shift_y": params.shift[1], "blur": params.blur, "noise": params.noise,
            "jpeg_quality": params.quality, "contrast": params.contrast, "bits": 8,
            "perspective": None, "lighting": None, "background": None, "threshold": None,
            "streaks": None, "annotations": None}
