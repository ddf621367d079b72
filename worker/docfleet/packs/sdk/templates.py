"""A pack's templates, shipped in its own package: ``<package>/templates/*.j2``, loaded
through :mod:`importlib` (Jinja's ``PackageLoader``: a directory or a zipped
distribution alike), so a third-party pack ships its templates with its code. The SDK's
own templates are there too, under the ``sdk/`` prefix: ``{% extends "sdk/page.html.j2"
%}`` is the page skeleton every pack's templates build on (one ``.page`` per printed
page, the CSS the layout check relies on).

:func:`pack_templates` is what a session renders with (one Jinja environment per pack
and process, compiled templates cached on disk: :mod:`docfleet.render.template_cache`);
:func:`pack_loader` is what a pack's ``template_loader()`` returns, for warming that
cache (``python -m docfleet.packs.templates``).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from docfleet.render.html import Templates

if TYPE_CHECKING:
    from jinja2 import BaseLoader

#: the prefix of the SDK's own templates in every pack's loader
SDK_PREFIX = "sdk"
#: the folder of a package that holds its templates
FOLDER = "templates"


@cache
def pack_loader(package: str) -> BaseLoader:
    """The loader of ``package``'s templates, with the SDK's under ``sdk/``."""
    from jinja2 import ChoiceLoader, PackageLoader, PrefixLoader

    return ChoiceLoader([
        PrefixLoader({SDK_PREFIX: PackageLoader("docfleet.packs.sdk", FOLDER)}),
        PackageLoader(package, FOLDER),
    ])


@cache
def pack_templates(package: str) -> Templates:
    """``package``'s templates (one per process and package)."""
    return Templates(pack_loader(package))
