"""The LLM catalogue: text written once by LLM calls (a run of kind ``catalogue``), read by
later generation runs with ``--option catalogue=URI`` and no key.

- :mod:`.plan` — which items to write (kind x product line x locale x variant);
- :mod:`.prompts`, :mod:`.validate`, :mod:`.procedural` — ask, check, fall back;
- :mod:`.routing` — weighted, stable model choice per item, quarantine-aware;
- :mod:`.budget` — prices and the fleet-wide reserve → call → settle guard;
- :mod:`.complete` — async calls under a concurrency bound, retries, quarantine;
- :mod:`.pack` — the ``catalogue`` pack the kernel drains like any other;
- the read API for generation runs, :class:`~docfleet.dataset.catalogue.Catalogue`, is a
  dataset reader (:mod:`docfleet.dataset.catalogue`), below the packs that use it.

Nothing here imports litellm at module import time (it takes seconds); only the build
path does (:func:`docfleet.catalogue.llm.litellm_module`).
"""
