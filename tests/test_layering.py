"""Keeps the layer order of STYLE.md honest: module-level imports only point downwards."""

from __future__ import annotations

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "chainer_compat"

# Lowest first; a module may import (at module level) only from its own layer or below.
LAYERS = {
    "configuration": 0, "_typing": 0, "_numpy1_aliases": 0, "types": 0, "warnings": 0,
    "_runtime_info": 0,
    "backend": 1, "_backend": 1, "backends": 1, "cuda": 1, "utils": 1, "device_resident": 1,
    "utils.type_check": 2, "function_hook": 2, "link_hook": 2, "initializer": 2, "initializers": 2,
    "variable": 3,
    "function_node": 4, "memory_layouts": 4,
    "functions": 5,
    "_engine": 6,
    "function": 7, "autograd": 7,
    "gradient_check": 8, "testing": 8, "link": 8, "sequential": 8, "links": 8,
    "optimizer": 8, "optimizers": 8, "optimizer_hooks": 8, "reporter": 8,
    "dataset": 8, "datasets": 8, "iterators": 8, "training": 8, "distribution": 8,
    "distributions": 8, "exporters": 8,
    "serializer": 8, "serializers": 8, "function_hooks": 8, "link_hooks": 8,
    "computational_graph": 8, "_porting": 8, "graph_optimizations": 8,
    "porting": 8, "chainerx": 8, "_surface": 8,
    "__init__": 9, "_alias": 9, "__main__": 9,
}


def layer_of(dotted: str) -> int | None:
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        key = ".".join(parts[:n])
        if key in LAYERS:
            return LAYERS[key]
    return None


def module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def module_level_imports(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            for alias in node.names:
                yield f"{node.module}.{alias.name}"


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_imports_only_lower_layers(path):
    name = module_name(path)
    own = layer_of(name)
    assert own is not None, f"{name} has no layer: add it to LAYERS"
    tree = ast.parse(path.read_text())
    for imported in module_level_imports(tree):
        if not imported.startswith("chainer_compat."):
            continue
        target = imported[len("chainer_compat."):]
        target_layer = layer_of(target)
        if target_layer is None:
            continue
        assert target_layer <= own, (
            f"{name} (layer {own}) imports {imported} (layer {target_layer}) at module level")
