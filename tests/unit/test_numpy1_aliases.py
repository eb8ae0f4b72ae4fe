"""NOTE [NumPy 1 aliases]: the NumPy 1 names NumPy has since removed, put back on request as
what NumPy 1 had, without touching the names NumPy has, and taken off again; the runner's
option and its hint when a script meets such a name."""

from __future__ import annotations

import builtins
import math
import textwrap

import numpy
import numpy.exceptions
import pytest

import chainer_compat
from chainer_compat import __main__ as cli
from chainer_compat import _numpy1_aliases
from tests.unit.test_main import run_cli, write

_SAME_OBJECT = {
    "int": builtins.int, "float": builtins.float, "complex": builtins.complex,
    "object": builtins.object, "str": builtins.str, "unicode": builtins.str,
    "float_": numpy.float64, "complex_": numpy.complex128, "cfloat": numpy.complex128,
    "singlecomplex": numpy.complex64, "longfloat": numpy.longdouble,
    "clongfloat": numpy.clongdouble, "longcomplex": numpy.clongdouble,
    "string_": numpy.bytes_, "unicode_": numpy.str_, "int0": numpy.intp, "uint0": numpy.uintp,
    "bool8": numpy.bool_, "object0": numpy.object_, "str0": numpy.str_,
    "bytes0": numpy.bytes_, "void0": numpy.void, "product": numpy.prod,
    "cumproduct": numpy.cumprod, "sometrue": numpy.any, "alltrue": numpy.all,
    "round_": numpy.round, "mat": numpy.asmatrix, "math": math,
    "AxisError": numpy.exceptions.AxisError, "ComplexWarning": numpy.exceptions.ComplexWarning,
    "RankWarning": numpy.exceptions.RankWarning,
    "VisibleDeprecationWarning": numpy.exceptions.VisibleDeprecationWarning,
    "ModuleDeprecationWarning": numpy.exceptions.ModuleDeprecationWarning,
    "TooHardError": numpy.exceptions.TooHardError,
}


@pytest.fixture
def aliases():
    handle = chainer_compat.install_numpy1_aliases()
    try:
        yield handle
    finally:
        handle.remove()


def test_the_aliases_are_numpy_1s_objects(aliases):
    for name, expected in _SAME_OBJECT.items():
        assert getattr(numpy, name) is expected, name
    assert numpy.zeros(2, dtype=numpy.float).dtype == numpy.float64


def test_the_constants_are_numpy_1s(aliases):
    for name in ("Inf", "Infinity", "infty", "PINF"):
        assert getattr(numpy, name) == math.inf, name
    assert numpy.NINF == -math.inf
    assert math.isnan(numpy.NaN) and math.isnan(numpy.NAN)
    assert numpy.PZERO == 0.0 and not math.copysign(1.0, numpy.PZERO) < 0
    assert numpy.NZERO == 0.0 and math.copysign(1.0, numpy.NZERO) < 0


def test_the_functions_behave_as_numpy_1s(aliases):
    value = numpy.asscalar(numpy.array([2.5]))
    assert value == 2.5 and type(value) is float  # a Python number, as item() gives
    assert numpy.rank(numpy.zeros((2, 3))) == 2 and numpy.rank(5.0) == 0
    assert numpy.alen([[1, 2], [3, 4], [5, 6]]) == 3 and numpy.alen(7) == 1
    matrix = numpy.array([[3.0, 1.0], [2.0, 5.0]])
    numpy.testing.assert_array_equal(numpy.msort(matrix), [[2.0, 1.0], [3.0, 5.0]])
    assert numpy.asfarray([1, 2]).dtype == numpy.float64
    assert numpy.asfarray([1, 2], dtype=numpy.int32).dtype == numpy.float64
    assert numpy.asfarray([1, 2], dtype=numpy.float32).dtype == numpy.float32
    assert numpy.in1d(matrix, [1.0, 5.0]).tolist() == [False, True, False, True]
    assert numpy.in1d(matrix, [1.0], invert=True).tolist() == [True, False, True, True]
    assert numpy.trapz([1.0, 2.0, 3.0], dx=2) == 8.0
    # row_stack is NumPy's own (deprecated) up to 2.4, and put back from 2.5 on.
    assert "row_stack" not in aliases.names or numpy.row_stack is numpy.vstack


def test_cast_converts_to_a_copy_wrapping_as_astype_does(aliases):
    source = numpy.array([1.7, 300.0])
    converted = numpy.cast[numpy.uint8](source)
    assert converted.dtype == numpy.uint8 and converted.tolist() == [1, 44]
    converted[0] = 9
    assert source[0] == 1.7  # a copy
    assert numpy.cast["i4"]([1.7, 2.2]).tolist() == [1, 2]
    assert numpy.float32 in numpy.cast and "f8" not in numpy.cast  # keys are the types
    assert numpy.cast.get("f8") is None and len(numpy.cast) == len(set(
        numpy.dtype(code).type for code in numpy.typecodes["All"]))
    with pytest.raises(KeyError):
        numpy.cast["not a dtype"]  # noqa: B018


def test_sctypes_lists_this_platforms_distinct_types_by_kind(aliases):
    floats = numpy.sctypes["float"]
    assert floats[:3] == [numpy.float16, numpy.float32, numpy.float64]
    assert (numpy.longdouble in floats) == (numpy.dtype(numpy.longdouble).itemsize > 8)
    assert numpy.sctypes["int"] == [numpy.int8, numpy.int16, numpy.int32, numpy.int64]
    assert numpy.sctypes["uint"] == [numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64]
    assert numpy.sctypes["complex"][:2] == [numpy.complex64, numpy.complex128]
    assert numpy.sctypes["others"] == [bool, object, bytes, str, numpy.void]


def test_names_numpy_has_are_left_alone_and_not_removed(monkeypatch):
    # As on NumPy releases that still have in1d and trapz: theirs stay, before and after.
    def numpys_own_in1d(*args, **kwargs):
        raise AssertionError("not to be called")

    monkeypatch.setattr(numpy, "in1d", numpys_own_in1d, raising=False)
    handle = chainer_compat.install_numpy1_aliases()
    try:
        assert numpy.in1d is numpys_own_in1d and "in1d" not in handle.names
        assert "float" in handle.names
    finally:
        handle.remove()
    assert numpy.in1d is numpys_own_in1d
    # NumPy 2's own bool and long keep their meaning.
    assert numpy.bool is numpy.bool_ and numpy.long is not builtins.int


def test_remove_takes_the_names_off_and_is_harmless_twice():
    handle = chainer_compat.install_numpy1_aliases()

    def users_mat(data):
        return numpy.asmatrix(data)

    numpy.mat = users_mat  # reassigned by the user since: not ours to remove any more
    try:
        assert _numpy1_aliases.installed()
        handle.remove()
        handle.remove()
        assert not _numpy1_aliases.installed()
        with pytest.raises(AttributeError):
            numpy.float  # noqa: B018 - the attribute access is the test
        with pytest.raises(AttributeError):
            numpy.asscalar  # noqa: B018
        assert numpy.mat is users_mat
    finally:
        del numpy.mat


def _raised(action):
    try:
        action()
    except Exception as error:  # noqa: BLE001 - the error is what the test inspects
        return error
    raise AssertionError("nothing raised")


def test_numpy_errors_name_the_removed_name_whatever_their_form():
    def from_import():
        exec("from numpy import asscalar")  # noqa: S102

    def wrapped():
        try:
            numpy.float_  # noqa: B018
        except AttributeError as error:
            raise RuntimeError("while loading") from error

    assert _numpy1_aliases.removed_numpy_name(_raised(lambda: numpy.float)) == "float"
    assert _numpy1_aliases.removed_numpy_name(_raised(lambda: numpy.float_)) == "float_"
    assert _numpy1_aliases.removed_numpy_name(_raised(from_import)) == "asscalar"
    assert _numpy1_aliases.removed_numpy_name(_raised(wrapped)) == "float_"
    assert _numpy1_aliases.removed_numpy_name(
        _raised(lambda: numpy.not_a_numpy_name)) is None
    assert _numpy1_aliases.removed_numpy_name(
        ValueError("module 'numpy' has no attribute 'float'")) is None


def test_a_hint_never_fails_on_an_odd_error():
    class Unprintable(AttributeError):
        def __str__(self):
            raise RuntimeError("no message")

    assert _numpy1_aliases.removed_numpy_name(Unprintable()) is None
    odd = ModuleNotFoundError("odd")
    odd.name = ["not", "hashable"]  # type: ignore[assignment]
    assert cli._missing_package_hint(odd) is None
    assert cli._missing_package_hint(ModuleNotFoundError("no name")) is None


LEGACY_NUMPY_SCRIPT = """\
    import numpy as np
    import chainer
    x = chainer.Variable(np.zeros(2, dtype=np.float32))
    print(np.asscalar(np.sum(x.array + np.float(1.5))), np.NaN != np.NaN)
"""


def test_the_runner_puts_the_names_back_on_request(tmp_path):
    script = write(tmp_path / "legacy.py", LEGACY_NUMPY_SCRIPT)
    result = run_cli("--numpy1-aliases", str(script), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["3.0", "True"]
    twice = run_cli("--numpy1-aliases", "--numpy1-aliases", str(script), cwd=tmp_path)
    assert twice.returncode == 0 and twice.stdout.split() == ["3.0", "True"]


def test_without_the_option_the_runner_says_how_to_run_it(tmp_path):
    script = write(tmp_path / "legacy.py", LEGACY_NUMPY_SCRIPT)
    result = run_cli(str(script), cwd=tmp_path)
    assert result.returncode == 1
    assert "AttributeError" in result.stderr
    assert "`numpy.asscalar` is a NumPy 1 name that NumPy has since removed" in result.stderr
    assert "--numpy1-aliases" in result.stderr and "`a.item()`" in result.stderr


def test_with_the_option_a_failure_in_a_spawned_process_points_there(tmp_path):
    script = write(tmp_path / "spawned.py", """\
        import numpy
        numpy.asscalar  # here, put back
        raise RuntimeError("a worker failed") from AttributeError(
            "module 'numpy' has no attribute 'asscalar'")
    """)
    result = run_cli("--numpy1-aliases", str(script), cwd=tmp_path)
    assert result.returncode == 1
    assert "processes it started with spawn or forkserver" in result.stderr


def test_the_option_applies_to_modules_and_needs_something_to_run(tmp_path):
    write(tmp_path / "legacy_module.py", LEGACY_NUMPY_SCRIPT)
    result = run_cli("--numpy1-aliases", "-m", "legacy_module", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["3.0", "True"]
    alone = run_cli("--numpy1-aliases", cwd=tmp_path)
    assert alone.returncode == 2 and "needs a SCRIPT or -m MODULE" in alone.stderr
    assert run_cli("--numpy1-aliases", "check", ".", cwd=tmp_path).returncode == 2
    helped = run_cli("--numpy1-aliases", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "--numpy1-aliases" in helped.stdout


def test_other_errors_get_no_hint(tmp_path):
    script = write(tmp_path / "broken.py", textwrap.dedent("""\
        import numpy
        numpy.no_such_name_in_any_numpy
    """))
    result = run_cli(str(script), cwd=tmp_path)
    assert result.returncode == 1 and "AttributeError" in result.stderr
    assert "--numpy1-aliases" not in result.stderr
