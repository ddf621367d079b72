"""The template cache warmed for every installed pack (the image's build step):

    python -m docfleet.packs.template_cache

Each pack's ``template_loader()`` (its own package's templates and the SDK's) is compiled
into the on-disk cache of :mod:`docfleet.render.template_cache`, so no task compiles
Jinja. A pack without templates (``None``) is skipped; a pack that does not load fails
the build with its one-line error.
"""

from __future__ import annotations

from docfleet.packs import available_packs, load_pack
from docfleet.render.html import Templates
from docfleet.render.template_cache import cache_dir, warm


def warm_installed() -> dict[str, int]:
    """Compile every installed pack's templates into the cache: pack → templates
    compiled (idempotent)."""
    counts = {}
    for name in available_packs():
        loader = load_pack(name).template_loader()
        if loader is not None:
            counts[name] = warm(Templates(loader).environment)
    return counts


if __name__ == "__main__":
    counts = warm_installed()
    print(f"{sum(counts.values())} templates compiled into {cache_dir()} "
          f"({', '.join(f'{k}: {v}' for k, v in counts.items())})")
