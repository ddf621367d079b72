"""The pack SDK: what every templated pack builds on (docs/packs.md is the guide).

A pack imports only this package, :mod:`docfleet.packs.base`, ``docfleet.core`` and
``docfleet.render`` (``tests/packs/test_pack_imports.py`` holds it to that). The modules,
each importable on its own (this package imports none of them, so a launcher that only
validates options loads no pyarrow, Jinja or Faker):

- :mod:`.pack`: :class:`~.pack.TemplatedPack`, a whole pack from its steps;
- :mod:`.session`: the pipeline (record → HTML → batched print → capture → boxes → rows)
  and :class:`~.session.DocumentSteps`, what a pack supplies to it;
- :mod:`.printing`: batched printing in fixed blocks; :mod:`.capture`: the capture
  conditions and how boxes follow them;
- :mod:`.rows`: the shared golden rows (fields, words, lines, labels, links, cells,
  pages) from one layout; :mod:`.schema`: their Arrow schemas and column meanings;
- :mod:`.options`: the shared run options and the per-document (locale, archetype,
  condition) draw; :mod:`.splits`: train/validation/test splits;
- :mod:`.locales`: currency, tax regime and formats per locale; :mod:`.money`: exact
  rounding and reconciliation; :mod:`.fields`: printed golden values; :mod:`.text`:
  words per language, text fitted to a budget;
- :mod:`.parties`: the seeded Faker per document, parties and addresses;
  :mod:`.identifiers`: tax numbers, phones, company names; :mod:`.banking`: account
  numbers valid by their country's rules; :mod:`.products`: product lines, quantities
  and prices;
- :mod:`.pages`: page geometry and pagination; :mod:`.style`: palettes and fonts;
- :mod:`.templates`: a pack's templates from its own package (and the SDK's page
  skeleton, ``sdk/page.html.j2``); :mod:`.catalogue`: model-written texts;
  :mod:`.telemetry`: spans for a pack's steps.
"""
