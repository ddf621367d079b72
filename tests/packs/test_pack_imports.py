"""The packs layer's import rule (docs/packs.md, docs/design.md): a pack imports only the
pack SDK (``docfleet.packs.sdk``), the protocol (``docfleet.packs.base``), ``docfleet.core``
and ``docfleet.render`` — never another pack (its public names or private ones), never
the blob or state store, never the kernel; the SDK imports no pack. Every import is
read, those inside functions too; the worked example (``examples/``) is held to it as a
third-party pack."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKS = REPO / "worker" / "docfleet" / "packs"
#: what a pack may import of docfleet (its own package besides)
ALLOWED = ("docfleet.packs.sdk", "docfleet.packs.base", "docfleet.core", "docfleet.render")
#: the packs layer's own modules beside the packs: the registry, the protocol, the cache
REGISTRY = ("__init__.py", "base.py", "template_cache.py")
#: what the SDK may import of docfleet besides those: the layers it is the packs' facade to
SDK_ALSO = ("docfleet.telemetry", "docfleet.dataset.splits", "docfleet.dataset.catalogue")


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in ``path``; ``from docfleet import x`` is
    ``docfleet.x``; a relative import is resolved against the module's package."""
    package = ".".join(path.relative_to(REPO / "worker").with_suffix("").parts[:-1]) \
        if (REPO / "worker") in path.parents else ""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{module}".rstrip(".")
            if module == "docfleet":
                out += [(node.lineno, f"docfleet.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, module))
    return out


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def violations(files: list[Path], allowed: tuple[str, ...]) -> list[str]:
    """Every import of docfleet in ``files`` outside ``allowed``, as ``path:line module``."""
    return [f"{path.name}:{line} imports {module}" for path in files
            for line, module in imports(path)
            if within(module, ("docfleet",)) and not within(module, allowed)]


def pack_modules() -> dict[str, list[Path]]:
    """Each pack (a folder of ``packs/`` or a module beside ``base.py``) → its files."""
    out: dict[str, list[Path]] = {}
    for entry in sorted(PACKS.iterdir()):
        if entry.name in ("sdk", "__pycache__", *REGISTRY):
            continue
        if entry.is_dir():
            out[f"docfleet.packs.{entry.name}"] = sorted(entry.rglob("*.py"))
        elif entry.suffix == ".py":
            out[f"docfleet.packs.{entry.stem}"] = [entry]
    return out


def test_a_pack_imports_only_the_sdk_the_protocol_core_and_render() -> None:
    found = pack_modules()
    assert {"docfleet.packs.invoice", "docfleet.packs.receipt",
            "docfleet.packs.purchase_order", "docfleet.packs.bank_statement",
            "docfleet.packs.form",
            "docfleet.packs.bench"} <= set(found)
    bad = [v for own, files in found.items() for v in violations(files, (*ALLOWED, own))]
    assert bad == []


def test_the_sdk_imports_no_pack_and_no_store_or_kernel() -> None:
    assert violations(sorted((PACKS / "sdk").rglob("*.py")), (*ALLOWED, *SDK_ALSO)) == []


def test_the_worked_example_is_held_to_the_same_rule() -> None:
    files = sorted((REPO / "examples").rglob("*.py"))
    assert files
    assert violations(files, ALLOWED) == []


def test_the_rule_catches_another_pack_the_blob_store_and_the_kernel(tmp_path: Path) -> None:
    """The checker itself, on a module that breaks the rule in each way (inside a
    function too)."""
    probe = tmp_path / "probe.py"
    probe.write_text("from docfleet.packs.invoice.source import InvoiceSource\n"
                     "from docfleet import blob\n"
                     "from docfleet.packs.sdk.money import cents\n"
                     "def later():\n"
                     "    import docfleet.kernel.worker\n"
                     "    from docfleet.packs.receipt import ReceiptPack\n")
    assert violations([probe], (*ALLOWED, "docfleet.packs.receipt")) == [
        "probe.py:1 imports docfleet.packs.invoice.source", "probe.py:2 imports docfleet.blob",
        "probe.py:5 imports docfleet.kernel.worker"]
