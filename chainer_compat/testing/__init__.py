"""Chainer's testing helpers, so legacy Chainer test suites run unchanged under pytest.

Layer 8: re-exports from the `testing` submodules; `run_module` imports pytest when it runs.
"""

from __future__ import annotations

import importlib
from typing import Any

# The submodules are attributes of the package, as in Chainer (`testing.attr.gpu`).
from chainer_compat.testing import (  # noqa: F401
    array,
    attr,
    backend,
    condition,
    helper,
    matrix,
    parameterized,
    random,
)
from chainer_compat.testing.array import assert_allclose
from chainer_compat.testing.backend import BackendConfig, inject_backend_tests

# --- Place for the helpers built on the autograd core -------------------------------------------
# The helpers built on the autograd core and links: testing.function_link,
# testing.unary_math_function_test, testing.training, testing.serializer.
from chainer_compat.testing.function_link import (
    FunctionTestCase,
    FunctionTestError,
    InitializerArgument,
    LinkInitializersTestCase,
    LinkTestCase,
    LinkTestError,
)
from chainer_compat.testing.helper import assert_warns, patch, with_requires, without_requires
from chainer_compat.testing.matrix import generate_matrix
from chainer_compat.testing.parameterized import (
    from_pytest_parameterize,
    parameterize,
    parameterize_pytest,
    product,
    product_dict,
)
from chainer_compat.testing.random import fix_random, generate_seed
from chainer_compat.testing.serializer import save_and_load, save_and_load_hdf5, save_and_load_npz
from chainer_compat.testing.training import get_trainer_with_mock_updater
from chainer_compat.testing.unary_math_function_test import unary_math_function_unittest

# -------------------------------------------------------------------------------------------------


def __getattr__(name: str) -> Any:
    # distribution_test marks its GPU tests with pytest marks while its class is being defined,
    # so it is imported on first use: `import chainer_compat` must work without pytest.
    if name in ("distribution_test", "distribution_unittest"):
        module = importlib.import_module(__name__ + ".distribution_test")
        return module if name == "distribution_test" else module.distribution_unittest
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_module(name: str, file: str) -> None:
    """Runs the test cases of a file with pytest when the file is executed as a script.

    Put ``testing.run_module(__name__, __file__)`` at the end of a test file; importing the file
    (as pytest does) does nothing.

    Args:
        name: The file's ``__name__``.
        file: The file's ``__file__``.
    """
    if name == "__main__":
        import pytest

        pytest.main([file, "-vvs", "-x", "--pdb"])


__all__ = [
    "BackendConfig",
    "FunctionTestCase",
    "FunctionTestError",
    "InitializerArgument",
    "LinkInitializersTestCase",
    "LinkTestCase",
    "LinkTestError",
    "get_trainer_with_mock_updater",
    "save_and_load",
    "save_and_load_hdf5",
    "save_and_load_npz",
    "unary_math_function_unittest",
    "assert_allclose",
    "distribution_unittest",
    "assert_warns",
    "fix_random",
    "from_pytest_parameterize",
    "generate_matrix",
    "generate_seed",
    "inject_backend_tests",
    "parameterize",
    "parameterize_pytest",
    "patch",
    "product",
    "product_dict",
    "run_module",
    "with_requires",
    "without_requires",
]
