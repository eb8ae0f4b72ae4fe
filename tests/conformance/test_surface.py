"""Pins the public surface: the floor of Chainer names legacy code leans on resolves at Chainer's
module paths, chainer_compat.functions exports exactly its implemented Chainer names, and every
deliberate omission says why."""

from __future__ import annotations

import importlib
import keyword
import re
from pathlib import Path

import pytest

import chainer_compat.functions
from chainer_compat import _surface

# The floor: names that legacy Chainer code and Chainer-style test suites use most (a static scan
# of real-world Chainer code), kept in the project's shared notes as chainer-surface.md.
FLOOR: dict[str, tuple[str, ...]] = {
    "chainer": (
        "Function", "FunctionHook", "FunctionNode", "Link", "Parameter", "Variable", "as_array",
        "as_variable", "backward", "force_backprop_mode", "get_array_types", "get_device",
        "grad", "is_debug", "no_backprop_mode", "set_debug", "using_config", "using_device"),
    "chainer.backend": ("CpuDevice", "GpuDevice", "get_array_module", "get_device_from_array"),
    "chainer.backend.GpuDevice": ("from_device_id",),
    "chainer.backends.cuda": ("cupy", "to_cpu", "to_gpu"),
    "chainer.backends.cuda.GpuDevice": ("from_device_id",),
    "chainer.configuration": ("GlobalConfig", "LocalConfig"),
    "chainer.configuration.config": ("lazy_grad_sum",),
    "chainer.function_hooks": ("PrintHook", "TimerHook"),
    "chainer.function_node": ("FunctionNode",),
    "chainer.functions": ("add", "identity", "matmul", "sin", "split_axis", "sqrt", "square",
                          "sum"),
    "chainer.functions.math.basic_math": ("Mul",),
    "chainer.functions.math.exponential": ("Exp",),
    "chainer.functions.math.identity": ("Identity",),
    "chainer.gradient_check": ("NondifferentiableError", "check_backward",
                               "check_double_backward", "numerical_grad"),
    "chainer.initializers": ("Constant", "One", "Zero"),
    "chainer.testing": (
        "FunctionTestCase", "FunctionTestError", "InitializerArgument",
        "LinkInitializersTestCase", "LinkTestCase", "LinkTestError", "assert_allclose",
        "assert_warns", "fix_random", "generate_matrix", "get_trainer_with_mock_updater",
        "inject_backend_tests", "parameterize", "product", "product_dict", "run_module",
        "save_and_load_npz", "unary_math_function_unittest", "with_requires"),
    "chainer.testing.attr": ("chainerx", "gpu", "ideep", "multi_gpu"),
    "chainer.testing.backend": ("inject_backend_tests",),
    "chainer.testing.condition": ("repeat", "repeat_with_success_at_least", "retry"),
    "chainer.utils": ("force_array",),
    "chainer.utils.type_check": (
        "BinaryOperator", "BoolBinaryOperator", "Call", "Constant", "Expr", "GetAttr",
        "GetItem", "InvalidType", "LightTypeInfoTuple", "TypeInfoTuple", "UnaryOperator",
        "Variable", "expect", "get_types", "prod", "same_types"),
    "chainer.variable": ("VariableNode",),
}

FLOOR_PATHS = [f"{module}.{name}" for module, names in FLOOR.items() for name in names]
SHARED_FLOOR = Path("/work/shared/chainer-surface.md")
F_NAMES = _surface.CHAINER_NAMES["chainer.functions"]


@pytest.mark.parametrize("path", FLOOR_PATHS)
def test_floor_name_resolves_at_chainers_path(path):
    assert _surface.exists(path), (
        f"{_surface.compat_path(path)} must exist: legacy code reaches it as {path}")


@pytest.mark.skipif(not SHARED_FLOOR.exists(), reason="the shared notes are not on this machine")
def test_floor_copy_matches_the_shared_notes():
    listed: dict[str, tuple[str, ...]] = {}
    text = SHARED_FLOOR.read_text()
    for match in re.finditer(r"^- `(chainer[\w.]*)`: (.*)$", text, re.MULTILINE):
        listed[match.group(1)] = tuple(re.findall(r"`(\w+)`", match.group(2)))
    assert listed == FLOOR


def test_floor_names_are_chainer_names_where_the_surface_lists_the_module():
    for module, names in FLOOR.items():
        if module in _surface.CHAINER_NAMES:
            assert set(names) <= set(_surface.CHAINER_NAMES[module]), module


def test_functions_exports_exactly_the_implemented_chainer_names():
    exported = set(chainer_compat.functions.__all__)
    implemented = {name for name in F_NAMES if _surface.status(f"chainer.functions.{name}")
                   == _surface.IMPLEMENTED}
    # What resolves is exported, so `from chainer.functions import *` sees it too ...
    assert implemented <= exported
    # ... and every exported function is one of Chainer 7.8.1's, implemented (classes are
    # exported for code written against Chainer 6 and earlier, where F.Exp and the like existed).
    exported_functions = {name for name in exported if not name[:1].isupper()}
    assert exported_functions <= set(F_NAMES), exported_functions - set(F_NAMES)
    assert exported_functions == implemented


def test_planned_and_implemented_split_functions_without_overlap():
    entries = _surface.surface(["chainer.functions"])
    assert [entry.name for entry in entries] == list(F_NAMES)
    for entry in entries:
        assert entry.status in (_surface.IMPLEMENTED, _surface.PLANNED), entry
        assert (entry.status == _surface.IMPLEMENTED) == hasattr(chainer_compat.functions,
                                                                  entry.name)


@pytest.mark.parametrize("path", sorted(_surface.KNOWN_DIVERGENCES))
def test_every_divergence_names_a_chainer_api_we_do_not_have_and_says_why(path):
    reason = _surface.KNOWN_DIVERGENCES[path]
    assert isinstance(reason, str) and len(reason.split()) >= 5, reason
    module, _, name = path.rpartition(".")
    assert path in _surface.CHAINER_MODULES or name in _surface.CHAINER_NAMES.get(module, ()), (
        f"{path} is not a Chainer {_surface.CHAINER_VERSION} name")
    assert not _surface.exists(path), (
        f"{path} is implemented now: remove it from KNOWN_DIVERGENCES")
    assert _surface.status(path) == _surface.OUT


def test_every_omission_in_the_surface_has_a_reason():
    for entry in _surface.surface():
        assert entry.status in (_surface.IMPLEMENTED, _surface.PLANNED, _surface.OUT)
        if entry.status == _surface.OUT:
            assert entry.reason, entry
        else:
            assert entry.reason is None, entry


def test_chainerx_is_out_of_scope_with_a_reason():
    assert "ChainerX" in _surface.divergence_reason("chainerx.ndarray")
    assert _surface.divergence_reason("chainer.backends.intel64.mdarray") is None
    assert _surface.divergence_reason("chainer.functions.relu") is None


def test_surface_lists_are_well_formed():
    for module, names in _surface.CHAINER_NAMES.items():
        assert module in _surface.CHAINER_MODULES, module
        assert len(names) == len(set(names)), module
        for name in names:
            assert name.isidentifier() and not keyword.iskeyword(name), (module, name)
            assert not name.startswith("_"), (module, name)
    for path in _surface.CHAINER_MODULES:
        assert path == "chainer" or path.startswith("chainer."), path
        assert all(part.isidentifier() for part in path.split("."))
    for alias, target in _surface.MODULE_ALIASES.items():
        assert alias in _surface.CHAINER_MODULES and target in _surface.CHAINER_MODULES


def test_functions_list_is_chainer_7_8_1s():
    # Spot checks from each group of Chainer 7.8.1's chainer/functions/__init__.py; classes
    # (F.ReLU) left the namespace in Chainer 7, `mean` is an alias of `average`.
    for name in ("relu6", "rrelu", "as_strided", "diagonal", "einsum", "erfcinv", "shift",
                 "discriminative_margin_based_clustering_loss", "group_normalization",
                 "roi_max_align_2d", "forget", "mean", "sum_to", "zeta", "zoneout"):
        assert name in F_NAMES, name
    assert not any(name[:1].isupper() for name in F_NAMES)


def test_exists_maps_paths_and_does_not_import_cupy():
    import sys

    had_cupy = "cupy" in sys.modules
    assert _surface.exists("chainer.backends.cuda.cupy")
    assert _surface.exists("chainer.cuda.to_gpu")
    assert _surface.exists("chainer.functions.math.basic_math.Mul")
    assert not _surface.exists("chainer.functions.no_such_function")
    assert not _surface.exists("chainer.no_such_module.name")
    assert ("cupy" in sys.modules) == had_cupy
    with pytest.raises(ValueError, match="must start with 'chainer.'"):
        _surface.exists("numpy.sum")


def test_package_all_lists_only_names_that_exist_and_covers_the_floor():
    import chainer_compat

    assert all(hasattr(chainer_compat, name) for name in chainer_compat.__all__)
    floor = {"Function", "FunctionHook", "FunctionNode", "Link", "Parameter", "Variable",
             "as_array", "as_variable", "backward", "force_backprop_mode", "get_array_types",
             "get_device", "grad", "is_debug", "no_backprop_mode", "set_debug", "using_config",
             "using_device"}
    assert floor <= set(chainer_compat.__all__)


@pytest.mark.parametrize("path", sorted(_surface.CHAINER_MODULES))
def test_every_chainer_module_imports_or_is_left_out_with_a_reason(path):
    if _surface.divergence_reason(path) is not None:
        return
    importlib.import_module(_surface.compat_path(path))
