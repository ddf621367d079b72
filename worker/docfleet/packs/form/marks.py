"""Checkbox and radio marks as people make them: ticks and crosses inside or slightly
outside their box, filled dots, and strays that read as neither checked nor unchecked
(a faint stroke, a short dash where the pen was set down); drawn as SVG over the box, so the box's
golden field is the box alone and its state is in the pixels."""

from __future__ import annotations

import random

from docfleet.packs.form.records import Option

#: the mark's paths in a 20 x 20 box (ticks and crosses overshoot a little, as pens do)
PATHS = {
    "tick": "M3 10.5 L8 16 L18 3",
    "cross": "M3 3 L17 17 M17 3 L3 17",
    "stroke": "M5 13 L15 9.5",
    "dash": "M6 13.5 L9 12.8",
}


def draw_options(rng: random.Random, options: tuple[tuple[str, str], ...], radio: bool,
                 typed: bool) -> tuple[Option, ...]:
    """The states and marks of one group: one option chosen in a radio group, one or two
    in a checkbox group, none when left empty (10 %); a chosen box is sometimes marked
    so that it reads as neither (ambiguous), and an empty one now and then has a stray."""
    count = len(options)
    chosen: set[int] = set()
    if rng.random() >= 0.1:
        chosen = {rng.randrange(count)}
        if not radio and rng.random() < 0.35:
            chosen.add(rng.randrange(count))
    out = []
    for i, (key, text) in enumerate(options):
        state = "checked" if i in chosen else "unchecked"
        if typed:
            mark = "cross" if state == "checked" else "none"
            out.append(Option(key, text, state, mark, 0.0, 0.0, 0.8, 0.0))
            continue
        roll = rng.random()
        if roll < (0.07 if state == "checked" else 0.02):
            state = "ambiguous"
        if state == "unchecked":
            out.append(Option(key, text, state, "none", 0.0, 0.0, 1.0, 0.0))
        elif state == "ambiguous":
            if rng.random() < 0.5:
                out.append(Option(key, text, state, "stroke", _jitter(rng, 0.06), 0.0, 0.6,
                                  round(rng.uniform(-20, 20), 1)))
            else:  # the pen set down and lifted: a short dash in a corner
                out.append(Option(key, text, state, "dash", _jitter(rng, 0.04), 0.0, 1.0,
                                  round(rng.uniform(-10, 10), 1)))
        else:
            mark = rng.choices(("tick", "cross", "fill"), (6, 3.5, 1.5 if radio else 0))[0]
            if rng.random() < 0.3:  # past the box's edges
                dx, dy = _jitter(rng, 0.22), -abs(_jitter(rng, 0.22))
                scale = round(rng.uniform(1.15, 1.4), 2)
            else:
                dx, dy, scale = _jitter(rng, 0.08), _jitter(rng, 0.08), round(
                    rng.uniform(0.85, 1.1), 2)
            out.append(Option(key, text, state, mark, dx, dy, scale,
                              round(rng.uniform(-12, 12), 1)))
    return tuple(out)


def _jitter(rng: random.Random, most: float) -> float:
    return round(rng.uniform(-most, most), 3)


def mark_svg(option: Option, size: float, ink: str, heavy: bool) -> str:
    """The SVG drawing ``option``'s mark over a box of ``size`` px (empty: none)."""
    if option.mark == "none":
        return ""
    side = size * option.scale
    left = size / 2 + option.dx * size - side / 2
    top = size / 2 + option.dy * size - side / 2
    style = (f"left:{left:.2f}px;top:{top:.2f}px;width:{side:.2f}px;height:{side:.2f}px;"
             f"transform:rotate({option.rotation}deg)")
    if option.mark == "fill":
        body = f'<circle cx="10" cy="10" r="5.5" fill="{ink}"/>'
    else:
        colour = "#9a9fa8" if option.mark == "stroke" else ink
        width = {"stroke": 2.8, "dash": 1.8}.get(option.mark, 2.9 if heavy else 2.3)
        body = (f'<path d="{PATHS[option.mark]}" fill="none" stroke="{colour}" '
                f'stroke-width="{width:.2f}" stroke-linecap="round" stroke-linejoin="round"/>')
    return f'<svg class="mk" viewBox="0 0 20 20" style="{style}">{body}</svg>'
