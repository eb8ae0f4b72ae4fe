"""Unit tests for chainer_compat.initializer and chainer_compat.initializers."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy
import pytest

from chainer_compat import backend, configuration, initializers
from chainer_compat.initializer import Initializer, get_fans

CONV_SHAPE = (64, 32, 3, 3)
CONV_FAN_IN = 32 * 3 * 3
CONV_FAN_OUT = 64 * 3 * 3


def _cupy_or_skip():
    cupy = pytest.importorskip("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # a CuPy without a usable driver raises its own CUDA errors
        count = 0
    if count < 1:
        pytest.skip("needs a CUDA device")
    return cupy


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def xp(request):
    return numpy if request.param == "numpy" else _cupy_or_skip()


def _host(array):
    return array.get() if backend.get_array_module(array) is not numpy else array


# --- get_fans and the base class -----------------------------------------------------------


def test_get_fans_of_matrix_is_columns_then_rows():
    assert get_fans((7, 3)) == (3, 7)


def test_get_fans_of_conv_kernel_counts_receptive_field():
    assert get_fans(CONV_SHAPE) == (CONV_FAN_IN, CONV_FAN_OUT)


@pytest.mark.parametrize("shape", [(5,), ()])
def test_get_fans_rejects_fewer_than_two_dimensions(shape):
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        get_fans(shape)


def test_get_fans_rejects_non_tuple_shape():
    with pytest.raises(ValueError, match="must be a tuple"):
        get_fans([3, 4])


def test_base_initializer_keeps_dtype_and_refuses_to_fill():
    init = Initializer(numpy.float16)
    assert init.dtype is numpy.float16
    with pytest.raises(NotImplementedError):
        init(numpy.empty(3))


def test_subclass_skipping_super_init_still_generates_with_config_dtype():
    class Fives(Initializer):
        def __init__(self):  # deliberately no super().__init__(), as old Chainer code does
            pass

        def __call__(self, array):
            array[...] = 5

    array = initializers.generate_array(Fives(), (2, 3), numpy)
    assert array.dtype == numpy.float32
    numpy.testing.assert_array_equal(array, numpy.full((2, 3), 5, numpy.float32))


# --- constant initializers -----------------------------------------------------------------


def test_constant_scalar_fills_every_element(xp):
    array = xp.empty((3, 4), dtype=numpy.float32)
    initializers.Constant(2.5)(array)
    numpy.testing.assert_array_equal(_host(array), numpy.full((3, 4), 2.5, numpy.float32))


def test_constant_array_fill_value_broadcasts(xp):
    row = numpy.arange(4, dtype=numpy.float64)
    array = xp.empty((3, 4), dtype=numpy.float32)
    initializers.Constant(row)(array)
    numpy.testing.assert_array_equal(_host(array), numpy.broadcast_to(row, (3, 4)))


def test_constant_array_fill_value_that_cannot_broadcast_raises():
    with pytest.raises(ValueError):
        initializers.Constant(numpy.arange(3.0))(numpy.empty((2, 4)))


def test_constant_rejects_fill_value_that_is_not_scalar_or_array():
    with pytest.raises(ValueError, match="fill_value must be"):
        initializers.Constant([1.0, 2.0])


@pytest.mark.parametrize("cls, value", [
    (initializers.Zero, 0.0), (initializers.One, 1.0), (initializers.NaN, numpy.nan)])
def test_shorthand_constants_fill_their_value(xp, cls, value):
    array = xp.full((2, 5), 7.0, dtype=numpy.float64)
    cls()(array)
    numpy.testing.assert_array_equal(_host(array), numpy.full((2, 5), value))
    assert cls.fill_value == value or (math.isnan(cls.fill_value) and math.isnan(value))


@pytest.mark.parametrize("scale", [1.0, -0.5])
def test_identity_puts_scale_on_diagonal_and_zero_elsewhere(xp, scale):
    array = xp.full((4, 4), 9.0, dtype=numpy.float32)
    initializers.Identity(scale)(array)
    numpy.testing.assert_array_equal(_host(array), scale * numpy.eye(4, dtype=numpy.float32))


@pytest.mark.parametrize("shape", [(3, 4), (4,), (2, 2, 2)])
def test_identity_rejects_non_square_matrix(shape):
    with pytest.raises(ValueError, match="square matrix"):
        initializers.Identity()(numpy.empty(shape))


# --- random initializers: statistics ------------------------------------------------------

# (class, kwargs, shape, expected standard deviation) for Gaussian initializers, the deviation
# written from each formula with the fans of the shape.
NORMAL_CASES = [
    (initializers.Normal, {"scale": 0.3}, (200, 300), 0.3),
    (initializers.LeCunNormal, {"scale": 2.0}, CONV_SHAPE, 2.0 * math.sqrt(1 / CONV_FAN_IN)),
    (initializers.GlorotNormal, {}, CONV_SHAPE, math.sqrt(2 / (CONV_FAN_IN + CONV_FAN_OUT))),
    (initializers.GlorotNormal, {"scale": 3.0}, (300, 200), 3.0 * math.sqrt(2 / 500)),
    (initializers.HeNormal, {}, CONV_SHAPE, math.sqrt(2 / CONV_FAN_IN)),
    (initializers.HeNormal, {"fan_option": "fan_out"}, CONV_SHAPE, math.sqrt(2 / CONV_FAN_OUT)),
]

# (class, kwargs, shape, expected bound s of U(-s, s)).
UNIFORM_CASES = [
    (initializers.Uniform, {"scale": 0.7}, (200, 300), 0.7),
    (initializers.LeCunUniform, {}, CONV_SHAPE, math.sqrt(3 / CONV_FAN_IN)),
    (initializers.GlorotUniform, {"scale": 0.5}, CONV_SHAPE,
     0.5 * math.sqrt(6 / (CONV_FAN_IN + CONV_FAN_OUT))),
    (initializers.HeUniform, {}, (300, 200), math.sqrt(6 / 200)),
]


def _check_normal(values, std):
    values = values.astype(numpy.float64)
    assert abs(values.mean()) < 5 * std / math.sqrt(values.size)
    assert values.std() == pytest.approx(std, rel=0.03)
    # A Gaussian this large reaches past two deviations but (almost surely) not past seven.
    assert numpy.abs(values).max() > 2 * std
    assert numpy.abs(values).max() < 7 * std


def _check_uniform(values, bound):
    values = values.astype(numpy.float64)
    assert values.min() >= -bound and values.max() <= bound
    assert values.min() < -0.99 * bound and values.max() > 0.99 * bound
    assert abs(values.mean()) < 5 * bound / math.sqrt(3 * values.size)
    assert values.std() == pytest.approx(bound / math.sqrt(3), rel=0.03)


@pytest.mark.parametrize("cls, kwargs, shape, std", NORMAL_CASES)
def test_normal_family_matches_formula_with_rng(cls, kwargs, shape, std):
    array = numpy.empty(shape, dtype=numpy.float32)
    cls(rng=numpy.random.RandomState(0), **kwargs)(array)
    assert array.dtype == numpy.float32 and array.shape == shape
    _check_normal(array, std)


@pytest.mark.parametrize("cls, kwargs, shape, std", NORMAL_CASES)
def test_normal_family_matches_formula_with_global_rng(xp, cls, kwargs, shape, std):
    xp.random.seed(1)
    array = xp.empty(shape, dtype=numpy.float32)
    cls(**kwargs)(array)
    _check_normal(_host(array), std)


@pytest.mark.parametrize("cls, kwargs, shape, bound", UNIFORM_CASES)
def test_uniform_family_matches_formula_with_rng(cls, kwargs, shape, bound):
    array = numpy.empty(shape, dtype=numpy.float64)
    cls(rng=numpy.random.RandomState(0), **kwargs)(array)
    _check_uniform(array, bound)


@pytest.mark.parametrize("cls, kwargs, shape, bound", UNIFORM_CASES)
def test_uniform_family_matches_formula_with_global_rng(xp, cls, kwargs, shape, bound):
    xp.random.seed(2)
    array = xp.empty(shape, dtype=numpy.float32)
    cls(**kwargs)(array)
    _check_uniform(_host(array), bound)


@pytest.mark.parametrize("cls", [initializers.Normal, initializers.Uniform,
                                 initializers.HeNormal, initializers.GlorotUniform])
def test_float16_array_is_filled_in_place(xp, cls):
    array = xp.zeros((40, 50), dtype=numpy.float16)
    cls(rng=numpy.random.RandomState(3))(array)
    values = _host(array)
    assert values.dtype == numpy.float16
    assert numpy.isfinite(values).all() and numpy.count_nonzero(values) > 1900


@pytest.mark.parametrize("cls", [initializers.Normal, initializers.LeCunNormal,
                                 initializers.Uniform, initializers.HeUniform,
                                 initializers.Orthogonal])
def test_same_seed_repeats_and_other_seed_differs(cls):
    def fill(seed):
        array = numpy.empty((20, 30), dtype=numpy.float32)
        cls(rng=numpy.random.RandomState(seed))(array)
        return array

    numpy.testing.assert_array_equal(fill(5), fill(5))
    assert not numpy.array_equal(fill(5), fill(6))


def test_global_numpy_seed_makes_default_draws_repeat():
    first, second = numpy.empty((10, 10)), numpy.empty((10, 10))
    numpy.random.seed(11)
    initializers.GlorotNormal()(first)
    numpy.random.seed(11)
    initializers.GlorotNormal()(second)
    numpy.testing.assert_array_equal(first, second)


def test_numpy_generator_works_as_rng():
    array = numpy.empty((100, 100))
    initializers.Uniform(0.2, rng=numpy.random.default_rng(0))(array)
    _check_uniform(array, 0.2)


def test_he_normal_rejects_unknown_fan_option_when_filling():
    init = initializers.HeNormal(fan_option="fan_avg")
    with pytest.raises(ValueError, match="fan_option"):
        init(numpy.empty((3, 4)))


@pytest.mark.parametrize("cls", [initializers.LeCunNormal, initializers.GlorotUniform])
def test_fan_based_initializers_reject_vectors(cls):
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        cls()(numpy.empty(5))


def test_rng_is_keyword_only():
    with pytest.raises(TypeError):
        initializers.Normal(0.1, None, numpy.random.RandomState(0))


# --- Orthogonal -----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (6, 6), (4, 2, 3), (10, 2, 2), (1, 7)])
@pytest.mark.parametrize("scale", [1.1, 0.5])
def test_orthogonal_rows_or_columns_are_orthonormal_times_scale(xp, shape, scale):
    array = xp.empty(shape, dtype=numpy.float64)
    initializers.Orthogonal(scale, rng=numpy.random.RandomState(0))(array)
    matrix = _host(array).reshape(shape[0], -1)
    rows, columns = matrix.shape
    gram = matrix @ matrix.T if rows <= columns else matrix.T @ matrix
    numpy.testing.assert_allclose(gram, scale ** 2 * numpy.eye(min(rows, columns)), atol=1e-10)


@pytest.mark.parametrize("shape", [(4, 4), (3, 6), (6, 3)])
def test_orthogonal_fixes_signs_so_r_has_positive_diagonal(shape):
    # Redraw the Gaussian the initializer drew; Q^T A must then be R, upper triangular with a
    # positive diagonal, which is the convention that makes the decomposition unique.
    array = numpy.empty(shape)
    initializers.Orthogonal(1.0, rng=numpy.random.RandomState(4))(array)
    gaussian = numpy.random.RandomState(4).normal(size=shape)
    q, a = (array, gaussian) if shape[0] >= shape[1] else (array.T, gaussian.T)
    r = q.T @ a
    numpy.testing.assert_allclose(numpy.tril(r, -1), 0, atol=1e-10)
    assert (numpy.diag(r) > 0).all()


def test_orthogonal_float32_result_is_orthonormal():
    array = numpy.empty((8, 16), dtype=numpy.float32)
    initializers.Orthogonal(2.0)(array)
    assert array.dtype == numpy.float32
    numpy.testing.assert_allclose(array @ array.T, 4.0 * numpy.eye(8), atol=1e-5)


@pytest.mark.parametrize("rng", [None, numpy.random.RandomState(0), numpy.random.default_rng(0)])
def test_orthogonal_scalar_becomes_plus_or_minus_scale(rng):
    seen = set()
    for _ in range(40):
        array = numpy.empty((), dtype=numpy.float64)
        initializers.Orthogonal(1.5, rng=rng)(array)
        seen.add(float(array))
    assert seen == {1.5, -1.5}


@pytest.mark.parametrize("mode, shape", [
    ("projection", (5, 3)), ("embedding", (3, 5)), ("basis", (3, 5)), ("basis", (5, 3)),
    ("embedding", (2, 2, 3))])
def test_orthogonal_mode_refuses_shape(mode, shape):
    with pytest.raises(ValueError, match="Orthogonal"):
        initializers.Orthogonal(mode=mode)(numpy.empty(shape))


@pytest.mark.parametrize("mode, shape", [
    ("projection", (3, 5)), ("projection", (4, 4)), ("embedding", (5, 3)), ("basis", (4, 2, 2)),
    ("auto", (3, 5)), ("auto", (5, 3))])
def test_orthogonal_mode_accepts_shape(mode, shape):
    array = numpy.zeros(shape)
    initializers.Orthogonal(mode=mode)(array)
    assert numpy.count_nonzero(array) > 0


def test_orthogonal_rejects_unknown_mode():
    with pytest.raises(ValueError, match="mode"):
        initializers.Orthogonal(mode="square")


def test_orthogonal_rejects_empty_array():
    with pytest.raises(ValueError, match="non-empty"):
        initializers.Orthogonal()(numpy.empty((0, 3)))


# --- dtype rules ----------------------------------------------------------------------------

ALL_CLASSES = [
    lambda dtype: initializers.Constant(1.0, dtype),
    initializers.Zero, initializers.One, initializers.NaN,
    lambda dtype: initializers.Identity(1.0, dtype),
    lambda dtype: initializers.Normal(0.1, dtype),
    lambda dtype: initializers.LeCunNormal(1.0, dtype),
    lambda dtype: initializers.GlorotNormal(1.0, dtype),
    lambda dtype: initializers.HeNormal(1.0, dtype),
    lambda dtype: initializers.Uniform(0.1, dtype),
    lambda dtype: initializers.LeCunUniform(1.0, dtype),
    lambda dtype: initializers.GlorotUniform(1.0, dtype),
    lambda dtype: initializers.HeUniform(1.0, dtype),
    lambda dtype: initializers.Orthogonal(1.0, dtype),
]


@pytest.mark.parametrize("make", ALL_CLASSES)
def test_fixed_dtype_rejects_array_of_other_dtype(make):
    init = make(numpy.float32)
    with pytest.raises(ValueError, match="float32") as info:
        init(numpy.empty((3, 3), dtype=numpy.float64))
    # compat: Chainer raised AssertionError here; code catching that keeps working.
    assert isinstance(info.value, AssertionError)


@pytest.mark.parametrize("make", ALL_CLASSES)
def test_fixed_dtype_accepts_matching_array_and_any_dtype_when_unset(make):
    matching = numpy.zeros((3, 3), dtype=numpy.float16)
    make(numpy.float16)(matching)
    anything = numpy.zeros((3, 3), dtype=numpy.float64)
    make(None)(anything)
    assert matching.dtype == numpy.float16 and anything.dtype == numpy.float64


# --- generate_array -------------------------------------------------------------------------


def test_generate_array_defaults_to_config_dtype(xp):
    array = initializers.generate_array(initializers.One(), (2, 3), xp)
    assert array.dtype == numpy.float32
    assert backend.get_array_module(array) is xp
    numpy.testing.assert_array_equal(_host(array), numpy.ones((2, 3)))


def test_generate_array_follows_changed_config_dtype():
    with configuration.using_config("dtype", numpy.float64):
        array = initializers.generate_array(initializers.Normal(), (4, 5), numpy)
    assert array.dtype == numpy.float64
    assert initializers.generate_array(initializers.Normal(), (4, 5), numpy).dtype == numpy.float32


def test_generate_array_maps_mixed16_config_to_float16():
    with configuration.using_config("dtype", "mixed16"):
        array = initializers.generate_array(initializers.Zero(), (2,), numpy)
    assert array.dtype == numpy.float16


def test_generate_array_prefers_initializer_dtype_over_config():
    with configuration.using_config("dtype", numpy.float64):
        array = initializers.generate_array(initializers.Zero(numpy.float16), (3,), numpy)
    assert array.dtype == numpy.float16


def test_generate_array_dtype_argument_wins_over_config():
    array = initializers.generate_array(initializers.Zero(), (3,), numpy, dtype="f8")
    assert array.dtype == numpy.float64


def test_generate_array_accepts_equal_dtype_spelled_differently():
    array = initializers.generate_array(initializers.Zero("float16"), (3,), numpy,
                                        dtype=numpy.float16)
    assert array.dtype == numpy.float16


def test_generate_array_rejects_dtype_that_contradicts_initializer():
    with pytest.raises(ValueError, match="dtype must match"):
        initializers.generate_array(initializers.Zero(numpy.float32), (3,), numpy,
                                    dtype=numpy.float64)


def test_generate_array_accepts_int_shape_and_plain_callable():
    def fill(array):
        array[...] = numpy.arange(array.size)

    array = initializers.generate_array(fill, 4, numpy)
    assert array.shape == (4,) and array.dtype == numpy.float32
    numpy.testing.assert_array_equal(array, numpy.arange(4))


def test_generate_array_accepts_numpy_device_specifier():
    array = initializers.generate_array(initializers.One(), (2, 3), numpy, device="@numpy")
    assert isinstance(array, numpy.ndarray) and array.dtype == numpy.float32
    numpy.testing.assert_array_equal(array, numpy.ones((2, 3)))


class _FakeDevice:
    def __init__(self, xp):
        self.xp = xp
        self.entered = 0

    def create_context(self):
        import contextlib

        @contextlib.contextmanager
        def context():
            self.entered += 1
            yield

        return context()


def test_generate_array_allocates_inside_the_device_context(monkeypatch):
    device = _FakeDevice(numpy)
    monkeypatch.setattr(backend, "get_device", lambda spec: device, raising=False)
    array = initializers.generate_array(initializers.One(), (2, 2), numpy, device="@numpy")
    assert device.entered == 1
    numpy.testing.assert_array_equal(array, numpy.ones((2, 2)))


def test_generate_array_rejects_device_of_another_module(monkeypatch):
    other_module = type(sys)("not_numpy")
    monkeypatch.setattr(backend, "get_device", lambda spec: _FakeDevice(other_module),
                        raising=False)
    with pytest.raises(ValueError, match="device must belong"):
        initializers.generate_array(initializers.One(), (2, 2), numpy, device="@other")


@pytest.mark.gpu
def test_generate_array_on_cupy_fills_on_the_current_device():
    cupy = _cupy_or_skip()
    array = initializers.generate_array(initializers.Orthogonal(), (4, 6), cupy)
    assert isinstance(array, cupy.ndarray) and array.dtype == numpy.float32
    assert array.device.id == cupy.cuda.Device().id
    host = array.get()
    numpy.testing.assert_allclose(host @ host.T, 1.21 * numpy.eye(4), atol=1e-5)


@pytest.mark.gpu
def test_cupy_rng_fills_numpy_array_and_numpy_rng_fills_cupy_array():
    cupy = _cupy_or_skip()
    on_host = numpy.empty((50, 60), dtype=numpy.float32)
    initializers.Uniform(0.3, rng=cupy.random.RandomState(0))(on_host)
    _check_uniform(on_host, 0.3)
    on_device = cupy.empty((50, 60), dtype=numpy.float32)
    initializers.Uniform(0.3, rng=numpy.random.RandomState(0))(on_device)
    _check_uniform(on_device.get(), 0.3)


# --- _get_initializer -----------------------------------------------------------------------


def test_get_initializer_none_gives_unit_lecun_normal():
    init = initializers._get_initializer(None)
    assert type(init) is initializers.LeCunNormal
    assert init.scale == 1.0 and init.dtype is None


@pytest.mark.parametrize("value", [3, 0.5, numpy.float32(2.0), True])
def test_get_initializer_scalar_gives_constant(value):
    init = initializers._get_initializer(value)
    assert type(init) is initializers.Constant and init.fill_value == value


def test_get_initializer_array_gives_constant_holding_it(xp):
    value = xp.arange(3.0)
    init = initializers._get_initializer(value)
    assert type(init) is initializers.Constant and init.fill_value is value


def test_get_initializer_returns_callables_unchanged():
    def fill(array):
        array[...] = 1

    existing = initializers.HeUniform()
    assert initializers._get_initializer(fill) is fill
    assert initializers._get_initializer(existing) is existing


@pytest.mark.parametrize("value", [[1.0, 2.0], {"a": 1}, object()])
def test_get_initializer_rejects_other_objects(value):
    with pytest.raises(TypeError, match="initializer must be"):
        initializers._get_initializer(value)


# --- surface --------------------------------------------------------------------------------


def test_every_exported_name_resolves_and_initializers_subclass_base():
    for name in initializers.__all__:
        assert hasattr(initializers, name), name
    for name in ["Constant", "Zero", "One", "NaN", "Identity", "Normal", "LeCunNormal",
                 "GlorotNormal", "HeNormal", "Uniform", "LeCunUniform", "GlorotUniform",
                 "HeUniform", "Orthogonal"]:
        assert issubclass(getattr(initializers, name), Initializer), name


def test_numpy_only_use_never_imports_cupy():
    code = (
        "import sys, numpy\n"
        "from chainer_compat import initializers\n"
        "initializers.generate_array(initializers.Orthogonal(), (3, 4), numpy)\n"
        "initializers.generate_array(initializers.Constant(numpy.ones(4)), (3, 4), numpy)\n"
        "initializers._get_initializer(numpy.ones(2))\n"
        "assert 'cupy' not in sys.modules, 'cupy was imported'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_integer_parameters_can_be_added_and_hold_their_values():
    # The NaN that fills a parameter before its initializer runs casts unsafely into an integer
    # array, as in Chainer, instead of raising (L.Parameter(int_array), add_param(dtype=int32)).
    import warnings

    import chainer_compat
    link = chainer_compat.Link()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "invalid value in cast"
        with link.init_scope():
            link.add_param("counts", (2,), dtype=numpy.int32)
        kept = chainer_compat.links.Parameter(numpy.array([3, 4], numpy.int32))
    assert link.counts.dtype == numpy.int32
    assert kept.W.dtype == numpy.int32
    numpy.testing.assert_array_equal(kept.W.array, [3, 4])
