"""Harder capture conditions than ``scan``: ``photo``, ``fax`` and ``annotated``.

Each rasterises a clean PDF (pypdfium2), degrades every page the way that capture would,
and re-wraps the pages as an image-only PDF of the same page size (no text layer). All
draws come from the document's seed, so a document captures to the same bytes every time.

Geometry is one plane projective map (a 3x3 homography) per page, from the clean page's
points to the captured page's points (top-left origin). Every golden box goes through the
same map: :meth:`Capture.box` is the axis-aligned hull of the carried corners (clipped to
the page) and :meth:`Capture.quad` the four carried corners themselves (TL, TR, BR, BL),
which for a photo is the exact quadrilateral the text now occupies.

- ``photo``: the page, scaled into the frame, rotated up to ±8°, its corners pulled into
  a perspective quadrilateral, lit unevenly (a linear and a radial fall-off), on a
  coloured, noisy background, slightly blurred, JPEG-compressed (colour).
- ``fax``: 100-200 dpi, a small skew, thresholded to 1 bit, with horizontal streaks and
  dropouts and speckle; stored losslessly (Flate, 1 bit per pixel).
- ``annotated``: the page as printed (identity geometry, colour), with a rubber stamp
  (PAID, RECEIVED, …), a handwritten tick and circle, a signature and a highlighter
  stroke over a printed field; every annotation's kind, text and box is a parameter.

:func:`capture_pdf` returns the PDF, the :class:`Capture` (geometry) and one parameter
dict per page — exactly the columns of the invoice pack's ``pages`` table.
"""

from __future__ import annotations

import io
import math
import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import pypdfium2 as pdfium
from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

from docfleet.render.corners import Corners, Quad
from docfleet.render.imagepdf import ImagePage, image_pdf
from docfleet.render.layout import Box

Matrix = tuple[float, float, float, float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
CONDITIONS = ("photo", "fax", "annotated")

STAMPS: dict[str, tuple[str, ...]] = {
    "en": ("PAID", "RECEIVED", "APPROVED", "COPY", "POSTED"),
    "fr": ("PAYÉ", "REÇU", "VALIDÉ", "COPIE"),
    "de": ("BEZAHLT", "EINGANG", "GEPRÜFT", "KOPIE"),
    "ja": ("支払済", "受領", "検収済", "控"),
    "ar": ("PAID", "RECEIVED", "COPY"),
}
FONTS = {
    "latin": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "ja": "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
}


class CaptureError(RuntimeError):
    """A capture could not be made (a font or page the condition needs is missing)."""


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (n is 8: no numpy needed)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            raise CaptureError("degenerate page quadrilateral")
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def homography(src: Sequence[tuple[float, float]], dst: Sequence[tuple[float, float]]
               ) -> Matrix:
    """The projective map taking the 4 points ``src`` to ``dst``."""
    a: list[list[float]] = []
    b: list[float] = []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        b.append(u)
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.append(v)
    h = _solve(a, b)
    return (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0)


def apply(h: Matrix, x: float, y: float) -> tuple[float, float]:
    w = h[6] * x + h[7] * y + h[8]
    return (h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w


def _inverse_coeffs(h: Matrix, scale: float) -> tuple[float, ...]:
    """PIL's PERSPECTIVE coefficients (output pixel → input pixel) for ``h`` in points,
    both images at ``scale`` px per point."""
    a, b, c, d, e, f, g, hh, i = h
    # inverse of the 3x3 matrix (adjugate; the scale cancels)
    inv = (e * i - f * hh, c * hh - b * i, b * f - c * e,
           f * g - d * i, a * i - c * g, c * d - a * f,
           d * hh - e * g, b * g - a * hh, a * e - b * d)
    # conjugate with the px<->pt scaling: input_px = S * H^-1 * S^-1 * output_px
    n = inv[8]
    return (inv[0] / n, inv[1] / n, inv[2] * scale / n,
            inv[3] / n, inv[4] / n, inv[5] * scale / n,
            inv[6] / scale / n, inv[7] / scale / n)


@dataclass
class Capture:
    """The geometry of one captured document: a homography per page (points → points)."""

    matrices: list[Matrix]
    sizes: list[tuple[float, float]]

    def quad(self, page: int, box: Box) -> Quad:
        """The corners TL, TR, BR, BL of ``box`` (page ``page``, 1-based) carried through."""
        # apply() at each corner, written out: the same sums in the same order, so the
        # same floats to the bit, without four calls and a list a box
        h0, h1, h2, h3, h4, h5, h6, h7, h8 = self.matrices[page - 1]
        x0, y0, x1, y1 = box
        w = h6 * x0 + h7 * y0 + h8
        ax, ay = (h0 * x0 + h1 * y0 + h2) / w, (h3 * x0 + h4 * y0 + h5) / w
        w = h6 * x1 + h7 * y0 + h8
        bx, by = (h0 * x1 + h1 * y0 + h2) / w, (h3 * x1 + h4 * y0 + h5) / w
        w = h6 * x1 + h7 * y1 + h8
        cx, cy = (h0 * x1 + h1 * y1 + h2) / w, (h3 * x1 + h4 * y1 + h5) / w
        w = h6 * x0 + h7 * y1 + h8
        dx, dy = (h0 * x0 + h1 * y1 + h2) / w, (h3 * x0 + h4 * y1 + h5) / w
        return (round(ax, 3), round(ay, 3), round(bx, 3), round(by, 3),
                round(cx, 3), round(cy, 3), round(dx, 3), round(dy, 3))

    def corners(self, page: int) -> Corners:
        """Page ``page``'s map for many boxes at once (:mod:`docfleet.render.corners`):
        the unrounded corners TL, TR, BR, BL, as :meth:`quad` computes them."""
        h0, h1, h2, h3, h4, h5, h6, h7, h8 = self.matrices[page - 1]

        def corners(x: Any, y: Any) -> tuple[Any, Any]:
            import pyarrow.compute as pc  # lazy: only a captured page's many boxes

            # apply(): ((h0*x + h1*y) + h2) / w, w = (h6*x + h7*y) + h8
            w = pc.add(pc.add(pc.multiply(x, h6), pc.multiply(y, h7)), h8)
            return (pc.divide(pc.add(pc.add(pc.multiply(x, h0), pc.multiply(y, h1)), h2), w),
                    pc.divide(pc.add(pc.add(pc.multiply(x, h3), pc.multiply(y, h4)), h5), w))

        return corners

    def box(self, page: int, box: Box) -> Box:
        """The axis-aligned hull of the carried ``box``, clipped to the page."""
        q = self.quad(page, box)
        xs, ys = q[0::2], q[1::2]
        w, h = self.sizes[page - 1]
        return (round(max(0.0, min(xs)), 3), round(max(0.0, min(ys)), 3),
                round(min(w, max(xs)), 3), round(min(h, max(ys)), 3))


def _noise(size: tuple[int, int], rng: random.Random, amp: int) -> Image.Image:
    w, h = size
    noise = Image.frombytes("L", (w, h), rng.randbytes(w * h))
    return noise.point(lambda v: 128 + (v - 128) * amp // 128)


def _in_mode(image: Image.Image, mode: str) -> Image.Image:
    """``image`` in ``mode``: itself when it is (no copy: a page's render is only read,
    never drawn on in place)."""
    return image if image.mode == mode else image.convert(mode)


def _grey_rgb(grey: Image.Image) -> Image.Image:
    """An ``L`` image as RGB, each channel the grey: the bytes of ``convert("RGB")``,
    a third of its CPU."""
    return Image.merge("RGB", (grey, grey, grey))


def _jpeg(image: Image.Image, quality: int) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=quality, optimize=False, progressive=False)
    return buf.getvalue()


def _empty_params() -> dict[str, Any]:
    return {"dpi": None, "angle": None, "shift_x": None, "shift_y": None, "blur": None,
            "noise": None, "jpeg_quality": None, "contrast": None, "bits": None,
            "perspective": None, "lighting": None, "background": None, "threshold": None,
            "streaks": None, "annotations": None}


# -- photo ---------------------------------------------------------------------------------

#: photo recipes: 1 is the first (a bicubic warp and a warped mask over a noisy
#: background, light and tint in two multiplies, a Gaussian blur); 2 (issue 32) keeps its
#: draws and geometry for about half the CPU: a bilinear warp onto the background colour,
#: light and tint in one multiply, one box-blur pass of the same variance
PHOTO_RECIPES = (1, 2)
#: the surfaces a photographed page lies on
_BACKGROUNDS = ((92, 64, 45), (60, 62, 70), (140, 120, 98), (35, 60, 48), (170, 165, 158))


def _photo(image: Image.Image, w: float, h: float, rng: random.Random, scale: float,
           recipe: int = 1) -> tuple[Image.Image, Matrix, dict[str, Any]]:
    angle = round(rng.uniform(-8, 8), 3)
    fit = round(rng.uniform(0.80, 0.88), 3)
    cx, cy = w / 2 + rng.uniform(-0.03, 0.03) * w, h / 2 + rng.uniform(-0.03, 0.03) * h
    t = math.radians(angle)
    jitter = 0.035
    dst = []
    for x, y in ((0, 0), (w, 0), (w, h), (0, h)):
        dx, dy = (x - w / 2) * fit, (y - h / 2) * fit
        rx = cx + dx * math.cos(t) + dy * math.sin(t)
        ry = cy - dx * math.sin(t) + dy * math.cos(t)
        dst.append((round(rx + rng.uniform(-jitter, jitter) * w, 2),
                    round(ry + rng.uniform(-jitter, jitter) * h, 2)))
    # keep every corner inside the frame
    dst = [(min(max(x, 2.0), w - 2), min(max(y, 2.0), h - 2)) for x, y in dst]
    matrix = homography([(0, 0), (w, 0), (w, h), (0, h)], dst)
    size = image.size
    coeffs = _inverse_coeffs(matrix, scale)
    if recipe == 2:
        photo, params = _photo_light(image, size, coeffs, rng)
    else:
        photo, params = _photo_first(image, size, coeffs, rng)
    return photo, matrix, {"angle": angle, **params,
                           "perspective": [round(v, 3) for p in dst for v in p]}


#: the light grid's size: columns by rows
_GRID = (64, 64)


@cache
def _grid_coordinates() -> tuple[Any, Any, Any]:
    """The light grid's u and v (-0.5 to 0.5, row by row: y, then x, as ``frombytes``
    reads them) and its radial vignette ``rad = 1 - 0.6 * (u * u + v * v) * 2``, as
    float64 Arrow arrays: the same for every photograph, so made once."""
    import pyarrow as pa  # lazy: only a photographed page needs it
    import pyarrow.compute as pc  # lazy: as above

    gw, gh = _GRID
    us = [i / (gw - 1) - 0.5 for i in range(gw)]
    u = pa.array(us * gh, pa.float64())
    v = pa.array([j / (gh - 1) - 0.5 for j in range(gh) for _ in us], pa.float64())
    r2 = pc.add(pc.multiply(u, u), pc.multiply(v, v))
    return u, v, pc.subtract(1.0, pc.multiply(pc.multiply(0.6, r2), 2.0))


def _light_grid(lighting: float, direction: float, tint: tuple[int, ...] | None = None
                ) -> Image.Image:
    """The uneven light over the frame on a 64 x 64 grid: a linear fall-off along
    ``direction`` times a radial vignette (``L``); with ``tint``, times the tint (RGB).

    Computed as Arrow columns, one IEEE operation per kernel in the order of the scalar
    formula (``level = 255 * (1 - lighting * (1 - lin * rad))``, a channel
    ``round(level * c / 255)``, clamped to 0-255), so every value is the double, and every
    byte the one, that formula gives point by point."""
    import pyarrow as pa  # lazy: only a photographed page needs it
    import pyarrow.compute as pc  # lazy: as above

    u, v, rad = _grid_coordinates()
    lin = pc.add(0.5, pc.add(pc.multiply(u, math.cos(direction)),
                             pc.multiply(v, math.sin(direction))))
    levels = pc.multiply(255.0, pc.subtract(1.0, pc.multiply(
        lighting, pc.subtract(1.0, pc.multiply(lin, rad)))))

    def channel(values: Any) -> Image.Image:
        rounded = pc.round(values, 0, round_mode="half_to_even")
        clamped = pc.max_element_wise(pc.min_element_wise(rounded, 255.0), 0.0)
        data = pc.cast(clamped, pa.uint8())
        return Image.frombuffer("L", _GRID, data.buffers()[1], "raw", "L", 0, 1)

    if tint is None:
        return channel(levels).copy()
    return Image.merge("RGB", [channel(pc.divide(pc.multiply(levels, float(c)), 255.0))
                               for c in tint])


def _photo_first(image: Image.Image, size: tuple[int, int], coeffs: tuple[float, ...],
                 rng: random.Random) -> tuple[Image.Image, dict[str, Any]]:
    """Photo recipe 1 (byte-identical to the runs that used it)."""
    page = _in_mode(image, "RGB").transform(size, Image.Transform.PERSPECTIVE, coeffs,
                                            Image.Resampling.BICUBIC, fillcolor=(0, 0, 0))
    mask = Image.new("L", image.size, 255).transform(
        size, Image.Transform.PERSPECTIVE, coeffs, Image.Resampling.BILINEAR, fillcolor=0)
    bg_colour = rng.choice(_BACKGROUNDS)
    background = Image.new("RGB", size, bg_colour)
    background = ImageChops.add(background, _grey_rgb(_noise(size, rng, 30)), 1.0, -128)
    photo = Image.composite(page, background, mask)
    # uneven light: a linear fall-off across the frame times a radial vignette
    lighting = round(rng.uniform(0.25, 0.45), 3)
    direction = rng.uniform(0, 2 * math.pi)
    light = _light_grid(lighting, direction).resize(size, Image.Resampling.BILINEAR)
    photo = ImageChops.multiply(photo, _grey_rgb(light))
    tint = tuple(rng.randint(235, 255) for _ in range(3))
    photo = ImageChops.multiply(photo, Image.new("RGB", size, tint))
    blur = round(rng.uniform(0.4, 1.2), 2)
    photo = photo.filter(ImageFilter.GaussianBlur(blur))
    noise = rng.randint(6, 16)
    photo = ImageChops.add(photo, _grey_rgb(_noise(size, rng, noise)), 1.0, -128)
    return photo, {"blur": blur, "noise": noise, "lighting": lighting,
                   "background": "#{:02x}{:02x}{:02x}".format(*bg_colour)}


def _photo_light(image: Image.Image, size: tuple[int, int], coeffs: tuple[float, ...],
                 rng: random.Random) -> tuple[Image.Image, dict[str, Any]]:
    """Photo recipe 2: the same look for about half the CPU. The page is warped
    (bilinear) straight onto the background colour, light and tint are one multiply by
    a tinted light grid, the blur is one box pass with the variance of the drawn Gaussian
    (sigma = ``blur``), and the background is a surface near one of five colours, textured
    by the sensor noise alone."""
    # a surface near one of the five, each channel moved up to ±12 (not five exact hues)
    bg_colour = tuple(max(0, min(255, c + rng.randint(-12, 12)))
                      for c in rng.choice(_BACKGROUNDS))
    photo = _in_mode(image, "RGB").transform(size, Image.Transform.PERSPECTIVE, coeffs,
                                             Image.Resampling.BILINEAR, fillcolor=bg_colour)
    lighting = round(rng.uniform(0.25, 0.45), 3)
    direction = rng.uniform(0, 2 * math.pi)
    tint = tuple(rng.randint(235, 255) for _ in range(3))
    light = _light_grid(lighting, direction, tint).resize(size, Image.Resampling.BILINEAR)
    photo = ImageChops.multiply(photo, light)
    blur = round(rng.uniform(0.4, 1.2), 2)
    # one box pass of radius r has variance ((2r + 1)^2 - 1) / 12: match sigma^2
    photo = photo.filter(ImageFilter.BoxBlur((math.sqrt(12 * blur * blur + 1) - 1) / 2))
    noise = rng.randint(6, 16)
    photo = ImageChops.add(photo, _grey_rgb(_noise(size, rng, noise)), 1.0, -128)
    return photo, {"blur": blur, "noise": noise, "lighting": lighting,
                   "background": "#{:02x}{:02x}{:02x}".format(*bg_colour)}



# -- fax -----------------------------------------------------------------------------------

def _fax(image: Image.Image, w: float, h: float, rng: random.Random, scale: float
         ) -> tuple[Image.Image, Matrix, dict[str, Any]]:
    angle = round(rng.uniform(-1.0, 1.0), 3)
    sx, sy = round(rng.uniform(-4, 4), 2), round(rng.uniform(-4, 4), 2)
    t = math.radians(angle)
    cx, cy = w / 2, h / 2
    dst = []
    for x, y in ((0, 0), (w, 0), (w, h), (0, h)):
        dx, dy = x - cx, y - cy
        dst.append((cx + dx * math.cos(t) + dy * math.sin(t) + sx,
                    cy - dx * math.sin(t) + dy * math.cos(t) + sy))
    matrix = homography([(0, 0), (w, 0), (w, h), (0, h)], dst)
    grey = _in_mode(image, "L").transform(image.size, Image.Transform.PERSPECTIVE,
                                          _inverse_coeffs(matrix, scale),
                                          Image.Resampling.BILINEAR, fillcolor=255)
    noise = rng.randint(8, 20)
    grey = ImageChops.add(grey, _noise(grey.size, rng, noise), 1.0, -128)
    threshold = rng.randint(175, 205)  # faint anti-aliased strokes survive, paper noise not
    bw = grey.point(lambda v: 255 if v >= threshold else 0, mode="1")
    draw = ImageDraw.Draw(bw)
    streaks = rng.randint(2, 7)
    for _ in range(streaks):
        y = rng.randrange(bw.height)
        thick = rng.randint(1, 3)
        x0 = rng.randrange(bw.width // 2)
        x1 = rng.randrange(bw.width // 2, bw.width)
        draw.rectangle((x0, y, x1, y + thick - 1), fill=rng.choice((0, 255)))
    params = {"angle": angle, "shift_x": sx, "shift_y": sy, "noise": noise,
              "threshold": threshold, "streaks": streaks}
    return bw, matrix, params


# -- annotated ----------------------------------------------------------------------------

def _font(language: str, size: int) -> ImageFont.FreeTypeFont:
    path = FONTS["ja" if language == "ja" else "latin"]
    try:
        return ImageFont.truetype(path, size)
    except OSError as exc:
        raise CaptureError(f"annotated needs the font {path} (apt-get install "
                           "fonts-dejavu-core fonts-noto-cjk)") from exc


def _annotate(image: Image.Image, w: float, h: float, rng: random.Random, scale: float,
              language: str, targets: Sequence[Box], first: bool
              ) -> tuple[Image.Image, dict[str, Any]]:
    page = _in_mode(image, "RGB")  # only read: the overlay is composited onto a copy
    overlay = Image.new("RGBA", page.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    notes: list[dict[str, Any]] = []

    def note(kind: str, text: str | None, box: tuple[float, float, float, float]) -> None:
        x0, y0, x1, y1 = (max(0.0, min(v / scale, lim)) for v, lim in
                          zip(box, (w, h, w, h), strict=True))
        notes.append({"kind": kind, "text": text, "x0": round(x0, 2), "y0": round(y0, 2),
                      "x1": round(x1, 2), "y1": round(y1, 2)})

    if targets:  # highlighter over a printed value, a tick beside another
        x0, y0, x1, y1 = (v * scale for v in rng.choice(list(targets)))
        pad = 2 * scale
        draw.rectangle((x0 - pad, y0, x1 + pad, y1), fill=(255, 235, 0, 95))
        note("highlight", None, (x0 - pad, y0, x1 + pad, y1))
        tx0, ty0, tx1, ty1 = (v * scale for v in rng.choice(list(targets)))
        s = (ty1 - ty0) * 1.2
        bx = tx1 + 6 * scale
        if bx + s > w * scale:  # no room right of the value (a narrow receipt): left of it
            bx = max(0.0, tx0 - 6 * scale - s)
        tick = [(bx, ty0 + s * 0.5), (bx + s * 0.35, ty0 + s * 0.9), (bx + s, ty0 - s * 0.3)]
        ink = (20, 40, 150, 230)
        draw.line(tick, fill=ink, width=max(2, round(scale * 1.2)), joint="curve")
        note("tick", None, (bx, ty0 - s * 0.3, bx + s, ty0 + s * 0.9))
        cx0, cy0, cx1, cy1 = (v * scale for v in rng.choice(list(targets)))
        m = 5 * scale
        draw.ellipse((cx0 - m, cy0 - m, cx1 + m, cy1 + m), outline=ink,
                     width=max(2, round(scale)))
        note("circle", None, (cx0 - m, cy0 - m, cx1 + m, cy1 + m))
    if first:
        text = rng.choice(STAMPS[language])
        size = round(rng.uniform(22, 30) * scale)
        font = _font(language, size)
        left, top, right, bottom = font.getbbox(text)
        tw, th = right - left + 2 * size // 2, bottom - top + size // 2
        stamp = Image.new("RGBA", (int(tw), int(th)), (0, 0, 0, 0))
        sd = ImageDraw.Draw(stamp)
        colour = rng.choice(((200, 30, 30), (30, 60, 170), (20, 120, 60)))
        sd.rectangle((2, 2, tw - 3, th - 3), outline=(*colour, 200), width=max(3, size // 9))
        sd.text((size // 2 - left, size // 4 - top), text, font=font, fill=(*colour, 200))
        stamp = stamp.rotate(rng.uniform(-25, 25), expand=True,
                             resample=Image.Resampling.BICUBIC)
        sx = rng.randint(round(page.width * 0.45), max(round(page.width * 0.45) + 1,
                                                        page.width - stamp.width - 10))
        sy = rng.randint(round(page.height * 0.08), round(page.height * 0.55))
        overlay.alpha_composite(stamp, (sx, sy))
        note("stamp", text, (sx, sy, sx + stamp.width, sy + stamp.height))
        # a signature: a smooth scribble in the lower part of the page
        gx = rng.uniform(0.08, 0.45) * page.width
        gy = rng.uniform(0.78, 0.86) * page.height
        length = rng.uniform(0.18, 0.28) * page.width
        amp = rng.uniform(6, 12) * scale
        f1, f2, ph = rng.uniform(3, 6), rng.uniform(9, 15), rng.uniform(0, 6.28)
        pts = [(gx + length * k / 120,
                gy + amp * math.sin(f1 * 6.28 * k / 120 + ph) * math.cos(f2 * k / 120))
               for k in range(121)]
        draw.line(pts, fill=(15, 25, 110, 235), width=max(2, round(scale * 0.9)),
                  joint="curve")
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        note("signature", None, (min(xs), min(ys), max(xs), max(ys)))
    page = Image.alpha_composite(page.convert("RGBA"), overlay).convert("RGB")
    return page, {"annotations": notes}


def capture_pdf(clean: bytes, condition: str, seed: int, language: str = "en",
                targets: Sequence[Sequence[Box]] = (), photo_recipe: int = 1
                ) -> tuple[bytes, Capture, list[dict[str, Any]]]:
    """Capture ``clean`` (a PDF) under ``condition`` (photo | fax | annotated) with draws
    from ``seed``. ``targets``: per page, boxes of printed values an annotator may mark;
    ``photo_recipe``: one of :data:`PHOTO_RECIPES` (same geometry, different pixels).
    Returns the image PDF, its geometry and one parameter dict per page (every key of
    the ``pages`` table's parameter columns; null where the condition has none).
    Deterministic; raises :class:`CaptureError` for an unknown condition."""
    if condition not in CONDITIONS:
        raise CaptureError(f"unknown capture condition {condition!r}")
    if photo_recipe not in PHOTO_RECIPES:
        raise CaptureError(f"unknown photo recipe {photo_recipe!r}")
    rng = random.Random(seed)
    dpi = rng.choice((100, 150, 200)) if condition == "fax" else 150
    scale = dpi / 72
    pages: list[ImagePage] = []
    matrices: list[Matrix] = []
    doc = pdfium.PdfDocument(clean)
    try:
        for i in range(len(doc)):
            pg = doc[i]
            w, h = pg.get_size()
            grey = condition == "fax"
            # in colour, pdfium writes RGB itself (rev_byteorder): the same pixels as its
            # BGR, with no swap when Pillow reads them
            image = pg.render(scale=scale, grayscale=grey, rev_byteorder=not grey).to_pil()
            pg.close()
            params = _empty_params()
            params["dpi"] = dpi
            if condition == "photo":
                img, matrix, extra = _photo(image, w, h, rng, scale, photo_recipe)
                quality = rng.randint(70, 90)
                data, colour, bits, filt = _jpeg(img, quality), "DeviceRGB", 8, "DCTDecode"
                params.update(extra, jpeg_quality=quality, bits=24)
            elif condition == "fax":
                img, matrix, extra = _fax(image, w, h, rng, scale)
                data = zlib.compress(img.tobytes(), 9)
                colour, bits, filt = "DeviceGray", 1, "FlateDecode"
                params.update(extra, bits=1)
            else:
                page_targets = targets[i] if i < len(targets) else ()
                img, extra = _annotate(image, w, h, rng, scale, language, page_targets,
                                       i == 0)
                matrix = IDENTITY
                quality = 92
                data, colour, bits, filt = _jpeg(img, quality), "DeviceRGB", 8, "DCTDecode"
                params.update(extra, jpeg_quality=quality, bits=24)
            matrices.append(matrix)
            pages.append(ImagePage(data, img.size, (w, h), colour, bits, filt, params))
    finally:
        doc.close()
    capture = Capture(matrices, [p.pt for p in pages])
    return image_pdf(pages), capture, [p.params for p in pages]
