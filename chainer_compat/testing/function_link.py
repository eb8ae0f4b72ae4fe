"""``FunctionTestCase``, ``LinkTestCase`` and ``LinkInitializersTestCase``: unittest base classes
that test a function's forward, backward and double backward (or a link's forward, backward and
initializers) on every backend ``inject_backend_tests`` gives, with ``gradient_check``.

Layer 8: imports backend, initializers, variable, link, gradient_check and ``testing.array``.
"""

from __future__ import annotations

import contextlib
import unittest
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

import numpy

from chainer_compat import backend, gradient_check, initializers
from chainer_compat.initializer import Initializer
from chainer_compat.link import Link
from chainer_compat.testing import array as array_module
from chainer_compat.variable import Parameter, Variable

__all__ = [
    "FunctionTestBase",
    "FunctionTestCase",
    "FunctionTestError",
    "InitializerArgument",
    "LinkInitializersTestCase",
    "LinkTestCase",
    "LinkTestError",
]


class _TestError(AssertionError):
    """Base of the errors that say the code under test (not the test) is wrong."""

    @classmethod
    def check(cls, expr: Any, message: str) -> None:
        """Raises this error with ``message`` unless ``expr`` is true."""
        if not expr:
            raise cls(message)

    @classmethod
    def fail(cls, message: str, exc: BaseException | None = None) -> NoReturn:
        """Raises this error; with ``exc``, its text is appended and it becomes the cause."""
        if exc is None:
            raise cls(message)
        raise cls(f"{message}\n\n(caused by)\n{type(exc).__name__}: {exc}\n") from exc

    @classmethod
    @contextlib.contextmanager
    def raise_if_fail(cls, message: str,
                      error_types: type[BaseException] | tuple[type[BaseException], ...] = (
                          AssertionError)) -> Iterator[None]:
        """Context manager turning ``error_types`` raised inside into this error."""
        try:
            yield
        except error_types as error:
            cls.fail(message, error)


class FunctionTestError(_TestError):
    """Raised when the function under a :class:`FunctionTestCase` is implemented incorrectly."""


class LinkTestError(_TestError):
    """Raised when the link under a :class:`LinkTestCase` is implemented incorrectly."""


def _check_initializer_like(initializer: Any) -> None:
    if not (initializer is None or isinstance(initializer, Initializer) or callable(initializer)
            or isinstance(initializer, backend.get_array_types())
            or numpy.isscalar(initializer)):
        raise TypeError(
            f"Initializer is of wrong type: {type(initializer)}. Allowed types are "
            "Initializer, ndarray and scalar.")


class InitializerArgument:
    """A link constructor argument paired with the initializer the link should use for it.

    Use it in :meth:`LinkInitializersTestCase.get_initializers` when the argument is not an
    initializer itself, e.g. ``InitializerArgument(None, initializers.Zero())`` for a bias that
    defaults to zeros.

    Args:
        argument_value: What is passed to the link's constructor.
        expected_initializer: The initializer-like (initializer, array or scalar) that the
            parameter must be filled with.

    Raises:
        ValueError: If ``expected_initializer`` is None.
        TypeError: If it is not initializer-like.
    """

    def __init__(self, argument_value: Any, expected_initializer: Any) -> None:
        if expected_initializer is None:
            raise ValueError("Expected initialized cannot be None.")
        _check_initializer_like(expected_initializer)
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer


# ---------------------------------------------------------------------------------------------
# checks shared by the test cases

def _describe_arrays(arrays: Sequence[Any]) -> str:
    return ", ".join(
        "None" if a is None else f"(shape={tuple(a.shape)}, dtype={numpy.dtype(a.dtype).name})"
        for a in arrays)


def _check_array_types(arrays: Any, device: backend.Device, method_name: str) -> None:
    """Checks what a user hook such as ``generate_inputs`` returned (a test-writing error)."""
    if not isinstance(arrays, tuple):
        raise TypeError(f"`{method_name}()` must return a tuple, not {type(arrays)}.")
    # None stands for an absent array (an output with no gradient, for example).
    if not all(a is None or isinstance(a, device.supported_array_types) for a in arrays):
        raise TypeError(
            f"{method_name}() must return a tuple of arrays supported by device {device} or "
            f"None.\nActual: {tuple(type(a) for a in arrays)}")


def _check_variable_types(variables: Any, device: backend.Device, method_name: str,
                          error_type: type[_TestError]) -> None:
    """Checks what the code under test returned from forward."""
    if not isinstance(variables, tuple):
        error_type.fail(f"`{method_name}()` must return a tuple, not {type(variables)}.")
    if not all(isinstance(v, Variable) for v in variables):
        error_type.fail(
            f"{method_name}() must return a tuple of Variables.\n"
            f"Actual: {', '.join(str(type(v)) for v in variables)}")
    if not all(isinstance(v.array, device.supported_array_types) for v in variables):
        error_type.fail(
            f"{method_name}() must return a tuple of Variables of arrays supported by device "
            f"{device}.\nActual: {', '.join(str(type(v.array)) for v in variables)}")


def _check_arrays_equal(actual: Sequence[Any], expected: Sequence[Any],
                        error_type: type[_TestError], **options: Any) -> None:
    """Raises ``error_type`` unless the arrays agree in number, shape, dtype and value."""
    message = None
    details = ""
    if len(actual) != len(expected):
        message = f"Number of outputs ({len(actual)}, {len(expected)}) does not match"
    elif not all(a.shape == e.shape and a.dtype == e.dtype for a, e in zip(actual, expected)):
        message = "Shapes and/or dtypes do not match"
    else:
        failures = []
        for index, (a, e) in enumerate(zip(actual, expected)):
            try:
                array_module.assert_allclose(a, e, **options)
            except AssertionError as error:
                failures.append((index, error))
        if failures:
            message = ("Outputs do not match the expected values.\n"
                       "Indices of outputs that do not match: "
                       + ", ".join(str(index) for index, _ in failures))
            details = "".join(f"Error details of output [{index}]:\n{error}\n"
                              for index, error in failures)
    if message is not None:
        text = (f"{message}\n"
                f"Expected shapes and dtypes: {_describe_arrays(expected)}\n"
                f"Actual shapes and dtypes:   {_describe_arrays(actual)}\n")
        if details:
            text += "\n\n" + details
        error_type.fail(text)


def _to_noncontiguous_as_needed(contiguous: str | None, arrays: Any) -> Any:
    if contiguous is None:
        return array_module._as_noncontiguous_array(arrays)
    if contiguous == "C":
        return arrays
    raise ValueError(f"contiguous must be None or 'C', got {contiguous!r}")


def _retry_at_nondifferentiable_points(dodge: bool, check: Callable[[], None]) -> None:
    # With dodging on, inputs that land on a kink are redrawn until a smooth point is drawn.
    while True:
        try:
            check()
        except gradient_check.NondifferentiableError:
            if not dodge:
                raise
            continue
        return


class _CollectOnlySubclasses:
    """Keeps pytest from collecting the toolkit base classes themselves.

    pytest collects every ``unittest.TestCase`` bound in a test module, whatever its name, so a
    module that imports ``FunctionTestCase`` would collect its test methods, which need a
    backend config. The bases say ``__test__ = False`` and ``_toolkit_base = True``; their
    subclasses say True again unless they (or a user base between) decide otherwise.
    """

    __test__ = False
    _toolkit_base = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__test__" in cls.__dict__:
            return
        for base in cls.__mro__[1:]:
            if "__test__" in base.__dict__:
                if base.__dict__.get("_toolkit_base", False):
                    cls.__test__ = True
                return


# ---------------------------------------------------------------------------------------------
# FunctionTestCase

class FunctionTestBase:
    """The body of :class:`FunctionTestCase`, without the unittest machinery."""

    backend_config: Any = None
    check_forward_options: dict[str, Any] | None = None
    check_backward_options: dict[str, Any] | None = None
    check_double_backward_options: dict[str, Any] | None = None
    skip_forward_test = False
    skip_backward_test = False
    skip_double_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype: Any = numpy.float64
    contiguous: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Per-instance dicts that setUp may update.
        # compat: options set as class attributes are kept (Chainer resets them to {}).
        self.check_forward_options = dict(type(self).check_forward_options or {})
        self.check_backward_options = dict(type(self).check_backward_options or {})
        self.check_double_backward_options = dict(
            type(self).check_double_backward_options or {})

    # ----------------------------------------------------------------------- user hooks
    def before_test(self, test_name: str) -> None:
        """Called before each test with its name; raise ``unittest.SkipTest`` to skip it."""

    def forward(self, inputs: tuple[Variable, ...], device: backend.Device) -> tuple[Variable, ...]:
        """Applies the function under test to the input Variables; returns output Variables."""
        raise NotImplementedError("forward() is not implemented.")

    def forward_expected(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        """Computes the expected outputs from the NumPy inputs."""
        raise NotImplementedError("forward_expected() is not implemented.")

    def generate_inputs(self) -> tuple[numpy.ndarray, ...]:
        """Returns the NumPy input arrays."""
        raise NotImplementedError("generate_inputs() is not implemented.")

    def generate_grad_outputs(self, outputs_template: tuple[numpy.ndarray, ...],
                              ) -> tuple[numpy.ndarray, ...]:
        """Returns output gradients shaped like the templates (uniform in [-1, 1))."""
        return tuple(numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
                     for a in outputs_template)

    def generate_grad_grad_inputs(self, inputs_template: tuple[numpy.ndarray, ...],
                                  ) -> tuple[numpy.ndarray, ...]:
        """Returns second-order input gradients shaped like the inputs (uniform in [-1, 1))."""
        return tuple(numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
                     for a in inputs_template)

    def check_forward_outputs(self, outputs: tuple[Any, ...],
                              expected_outputs: tuple[Any, ...]) -> None:
        """Compares actual and expected outputs; raises :class:`FunctionTestError`."""
        _check_arrays_equal(outputs, expected_outputs, FunctionTestError,
                            **(self.check_forward_options or {}))

    # ----------------------------------------------------------------------- plumbing
    def _to_noncontiguous_as_needed(self, arrays: Any) -> Any:
        return _to_noncontiguous_as_needed(self.contiguous, arrays)

    def _generate_inputs(self) -> tuple[Any, ...]:
        inputs = self.generate_inputs()
        _check_array_types(inputs, backend.CpuDevice(), "generate_inputs")
        return inputs

    def _generate_grad_outputs(self, outputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        grad_outputs = self.generate_grad_outputs(outputs_template)
        _check_array_types(grad_outputs, backend.CpuDevice(), "generate_grad_outputs")
        return grad_outputs

    def _generate_grad_grad_inputs(self, inputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        grad_grad_inputs = self.generate_grad_grad_inputs(inputs_template)
        _check_array_types(grad_grad_inputs, backend.CpuDevice(), "generate_grad_grad_inputs")
        return grad_grad_inputs

    def _forward_expected(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        outputs = self.forward_expected(inputs)
        _check_array_types(outputs, backend.CpuDevice(), "forward_expected")
        return outputs

    def _forward(self, inputs: tuple[Variable, ...], backend_config: Any) -> tuple[Variable, ...]:
        with backend_config:
            outputs = self.forward(inputs, backend_config.device)
        _check_variable_types(outputs, backend_config.device, "forward", FunctionTestError)
        return outputs

    # ----------------------------------------------------------------------- the tests
    def run_test_forward(self, backend_config: Any) -> None:
        """Checks the outputs against ``forward_expected``, and that inputs stay unchanged."""
        if self.skip_forward_test:
            raise unittest.SkipTest("skip_forward_test is set")
        self.backend_config = backend_config
        self.test_name = "test_forward"
        self.before_test(self.test_name)

        cpu_inputs = self._to_noncontiguous_as_needed(self._generate_inputs())
        originals = [a.copy() for a in cpu_inputs]
        expected = self._forward_expected(cpu_inputs)

        inputs = self._to_noncontiguous_as_needed(backend_config.get_array(cpu_inputs))
        outputs = self._forward(
            tuple(Variable(a, requires_grad=a.dtype.kind == "f") for a in inputs),
            backend_config)

        modified = []
        for index, (original, array) in enumerate(zip(originals, inputs)):
            try:
                array_module.assert_allclose(original, array, atol=0, rtol=0)
            except AssertionError:
                modified.append(index)
        if modified:
            FunctionTestError.fail(
                "Input arrays have been modified during forward.\n"
                f"Indices of modified inputs: {', '.join(str(i) for i in modified)}\n"
                f"Input array shapes and dtypes: {_describe_arrays(inputs)}\n")

        self.check_forward_outputs(tuple(v.array for v in outputs), expected)

    def run_test_backward(self, backend_config: Any) -> None:
        """Checks first-order gradients with :func:`gradient_check.check_backward`."""
        if self.skip_backward_test:
            raise unittest.SkipTest("skip_backward_test is set")
        self.backend_config = backend_config
        self.test_name = "test_backward"
        self.before_test(self.test_name)

        def function(*inputs: Variable) -> tuple[Variable, ...]:
            return self._forward(inputs, backend_config)

        def check() -> None:
            inputs = self._generate_inputs()
            grad_outputs = self._generate_grad_outputs(self._forward_expected(inputs))
            inputs = self._to_noncontiguous_as_needed(backend_config.get_array(inputs))
            grad_outputs = self._to_noncontiguous_as_needed(
                backend_config.get_array(grad_outputs))
            with FunctionTestError.raise_if_fail("backward is not implemented correctly"):
                gradient_check.check_backward(
                    function, inputs, grad_outputs, dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **(self.check_backward_options or {}))

        _retry_at_nondifferentiable_points(self.dodge_nondifferentiable, check)

    def run_test_double_backward(self, backend_config: Any) -> None:
        """Checks second-order gradients with :func:`gradient_check.check_double_backward`."""
        if self.skip_double_backward_test:
            raise unittest.SkipTest("skip_double_backward_test is set")
        self.backend_config = backend_config
        self.test_name = "test_double_backward"
        self.before_test(self.test_name)

        def function(*inputs: Variable) -> tuple[Variable, ...]:
            return self._forward(inputs, backend_config)

        def check() -> None:
            inputs = self._generate_inputs()
            grad_outputs = self._generate_grad_outputs(self._forward_expected(inputs))
            # Integer inputs have no gradient, so they get no second-order gradient either.
            grad_grad_inputs = [g for g in self._generate_grad_grad_inputs(inputs)
                                if g.dtype.kind == "f"]
            inputs = self._to_noncontiguous_as_needed(backend_config.get_array(inputs))
            grad_outputs = self._to_noncontiguous_as_needed(
                backend_config.get_array(grad_outputs))
            grad_grad_inputs = self._to_noncontiguous_as_needed(
                backend_config.get_array(grad_grad_inputs))
            with backend_config, FunctionTestError.raise_if_fail(
                    "double backward is not implemented correctly"):
                gradient_check.check_double_backward(
                    function, inputs, grad_outputs, grad_grad_inputs,
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **(self.check_double_backward_options or {}))

        _retry_at_nondifferentiable_points(self.dodge_nondifferentiable, check)


class FunctionTestCase(_CollectOnlySubclasses, FunctionTestBase, unittest.TestCase):
    """Base class of function tests: forward, backward and double backward on each backend.

    Use it with :func:`~chainer_compat.testing.inject_backend_tests`, which gives each test
    its backend config. Override:

    * ``generate_inputs(self)``: a tuple of NumPy input arrays;
    * ``forward(self, inputs, device)``: apply the function to the tuple of input Variables
      and return a tuple of output Variables;
    * ``forward_expected(self, inputs)``: the expected NumPy outputs, as a tuple.

    Optionally ``before_test(self, test_name)`` (raise ``unittest.SkipTest`` there to skip),
    ``generate_grad_outputs``, ``generate_grad_grad_inputs`` and ``check_forward_outputs``.

    Attributes: ``skip_forward_test``, ``skip_backward_test``, ``skip_double_backward_test``
    (False); ``dodge_nondifferentiable`` (False: when True, inputs are redrawn while the
    numerical gradient finds a non-differentiable point); ``numerical_grad_dtype`` (float64:
    the dtype the numerical gradients are computed in, whatever the inputs' dtype);
    ``contiguous`` (None: inputs and gradients are made non-contiguous; 'C': left
    C-contiguous); ``check_forward_options``,
    ``check_backward_options``, ``check_double_backward_options``: keyword arguments of
    ``testing.assert_allclose``, ``gradient_check.check_backward`` and
    ``check_double_backward``, usually updated in ``setUp``.

    A wrong forward, backward or double backward raises :class:`FunctionTestError`.
    """

    __test__ = False
    _toolkit_base = True

    def test_forward(self, backend_config: Any) -> None:
        """Tests the forward computation."""
        self.run_test_forward(backend_config)

    def test_backward(self, backend_config: Any) -> None:
        """Tests the first-order gradients."""
        self.run_test_backward(backend_config)

    def test_double_backward(self, backend_config: Any) -> None:
        """Tests the second-order gradients."""
        self.run_test_double_backward(backend_config)


# ---------------------------------------------------------------------------------------------
# LinkTestCase and LinkInitializersTestCase

def _check_generated_initializer(initializer: Any) -> None:
    if isinstance(initializer, InitializerArgument):
        initializer = initializer.expected_initializer
    elif initializer is None:
        raise ValueError(
            "A None initializer must be wrapped in a InitializerArgument along with the "
            "expected initializer fallen back to.")
    _check_initializer_like(initializer)


def _argument_value(initializer: Any) -> Any:
    if isinstance(initializer, InitializerArgument):
        return initializer.argument_value
    return initializer


def _expected_initializer(initializer: Any) -> Any:
    if isinstance(initializer, InitializerArgument):
        initializer = initializer.expected_initializer
    if not isinstance(initializer, Initializer):
        initializer = initializers._get_initializer(initializer)
    return initializer


def _link_params(link: Link, names: Sequence[str]) -> list[Parameter]:
    params: list[Parameter] = []
    for name in names:
        param = getattr(link, name, None)
        if param is None:
            LinkTestError.fail(f"Link does not have a parameter named '{name}'.")
        params.append(param)
    return params


class _LinkTestBase:
    """What :class:`LinkTestCase` and :class:`LinkInitializersTestCase` share."""

    backend_config: Any = None
    contiguous: str | None = None
    param_names: Sequence[str] = ()
    check_forward_options: dict[str, Any] | None = None

    def before_test(self, test_name: str) -> None:
        """Called before each test with its name; raise ``unittest.SkipTest`` to skip it."""

    def generate_params(self) -> tuple[Any, ...]:
        """Returns one initializer-like per initializer argument of the link."""
        raise NotImplementedError("generate_params is not implemented.")

    def generate_inputs(self) -> tuple[numpy.ndarray, ...]:
        """Returns the NumPy input arrays."""
        raise NotImplementedError("generate_inputs is not implemented.")

    def create_link(self, initializers: Sequence[Any]) -> Link:
        """Builds the link under test from the initializer-likes."""
        raise NotImplementedError("create_link is not implemented.")

    def forward(self, link: Link, inputs: tuple[Variable, ...],
                device: backend.Device) -> tuple[Variable, ...]:
        """Calls the link on the inputs; override for links taking other arguments."""
        outputs = link(*inputs)
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        return outputs

    def check_forward_outputs(self, outputs: tuple[Any, ...],
                              expected_outputs: tuple[Any, ...]) -> None:
        """Compares actual and expected outputs; raises :class:`LinkTestError`."""
        _check_arrays_equal(outputs, expected_outputs, LinkTestError,
                            **(self.check_forward_options or {}))

    def _to_noncontiguous_as_needed(self, arrays: Any) -> Any:
        return _to_noncontiguous_as_needed(self.contiguous, arrays)

    def _generate_params(self) -> Sequence[Any]:
        params = self.generate_params()
        if not isinstance(params, (tuple, list)):
            raise TypeError("`generate_params` must return a tuple or a list.")
        for initializer in params:
            _check_generated_initializer(initializer)
        return params

    def _generate_inputs(self) -> tuple[Any, ...]:
        inputs = self.generate_inputs()
        _check_array_types(inputs, backend.CpuDevice(), "generate_inputs")
        return inputs

    def _create_link(self, initializers: Sequence[Any], backend_config: Any) -> Link:
        link = self.create_link(initializers)
        if not isinstance(link, Link):
            raise TypeError("`create_link` must return a chainer.Link object.")
        link.to_device(backend_config.device)
        return link

    def _create_initialized_link(self, initializers: Sequence[Any], backend_config: Any,
                                 ) -> tuple[Link, list[Any], list[Any]]:
        # One forward pass initializes lazily shaped parameters.
        link = self._create_link([_argument_value(i) for i in initializers], backend_config)
        inputs = self._to_noncontiguous_as_needed(
            backend_config.get_array(self._generate_inputs()))
        outputs = self._forward(link, tuple(Variable(x) for x in inputs), backend_config)
        link.cleargrads()
        return link, list(inputs), [y.array for y in outputs]

    def _forward(self, link: Link, inputs: tuple[Variable, ...],
                 backend_config: Any) -> tuple[Variable, ...]:
        with backend_config:
            outputs = self.forward(link, inputs, backend_config.device)
        _check_variable_types(outputs, backend_config.device, "forward", LinkTestError)
        return outputs


class LinkTestCase(_CollectOnlySubclasses, _LinkTestBase, unittest.TestCase):
    """Base class of link tests: forward and backward (inputs and parameters) on each backend.

    Use it with :func:`~chainer_compat.testing.inject_backend_tests`. Override
    ``generate_params(self)`` (one initializer-like per constructor argument),
    ``create_link(self, initializers)``, ``generate_inputs(self)`` and
    ``forward_expected(self, link, inputs)`` (NumPy outputs computed from the link, moved to
    the CPU, and the NumPy inputs); optionally ``forward(self, link, inputs, device)``,
    ``generate_grad_outputs``, ``check_forward_outputs`` and ``before_test``.

    Attributes: ``param_names`` (names of the parameters whose gradients are checked),
    ``skip_forward_test``, ``skip_backward_test``, ``dodge_nondifferentiable``,
    ``numerical_grad_dtype``, ``contiguous``, ``check_forward_options`` and
    ``check_backward_options``, as for
    :class:`FunctionTestCase`. A wrong link raises :class:`LinkTestError`.
    """

    __test__ = False
    _toolkit_base = True

    check_backward_options: dict[str, Any] | None = None
    skip_forward_test = False
    skip_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype: Any = numpy.float64

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # compat: options set as class attributes are kept (Chainer resets them to {}).
        self.check_forward_options = dict(type(self).check_forward_options or {})
        self.check_backward_options = dict(type(self).check_backward_options or {})
        super().__init__(*args, **kwargs)

    def forward_expected(self, link: Link, inputs: tuple[numpy.ndarray, ...],
                         ) -> tuple[numpy.ndarray, ...]:
        """Computes the expected NumPy outputs of ``link`` (on the CPU) for ``inputs``."""
        raise NotImplementedError("forward_expected() is not implemented.")

    def generate_grad_outputs(self, outputs_template: tuple[numpy.ndarray, ...],
                              ) -> tuple[numpy.ndarray, ...]:
        """Returns output gradients shaped like the templates (uniform in [-1, 1))."""
        return tuple(numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
                     for a in outputs_template)

    def test_forward(self, backend_config: Any) -> None:
        """Tests the forward computation."""
        if self.skip_forward_test:
            raise unittest.SkipTest("skip_forward_test is set")
        self.backend_config = backend_config
        self.before_test("test_forward")

        link = self._create_link(self._generate_params(), backend_config)
        cpu_inputs = self._generate_inputs()
        inputs = self._to_noncontiguous_as_needed(backend_config.get_array(cpu_inputs))
        outputs = self._forward(link, tuple(Variable(x) for x in inputs), backend_config)
        actual = tuple(y.array for y in outputs)
        # The expected outputs are computed on the CPU, from the now initialized link.
        link.to_device(backend.CpuDevice())
        expected = self.forward_expected(link, cpu_inputs)
        _check_array_types(expected, backend.CpuDevice(), "forward_expected")
        self.check_forward_outputs(actual, expected)

    def test_backward(self, backend_config: Any) -> None:
        """Tests the gradients of the inputs and of the ``param_names`` parameters."""
        if self.skip_backward_test:
            raise unittest.SkipTest("skip_backward_test is set")
        self.backend_config = backend_config
        self.before_test("test_backward")

        def check() -> None:
            initializers = self._generate_params()
            # A first link only produces consistent inputs, outputs and parameter arrays.
            link, inputs, outputs = self._create_initialized_link(initializers, backend_config)
            params = [p.array for p in _link_params(link, self.param_names)]
            cpu_outputs = tuple(backend.CpuDevice().send(y) for y in outputs)
            grad_outputs = self.generate_grad_outputs(cpu_outputs)
            _check_array_types(grad_outputs, backend.CpuDevice(), "generate_grad_outputs")
            grad_outputs = self._to_noncontiguous_as_needed(
                backend_config.get_array(grad_outputs))
            inputs = self._to_noncontiguous_as_needed(inputs)
            params = self._to_noncontiguous_as_needed(params)

            forward_link, _, _ = self._create_initialized_link(initializers, backend_config)

            def forward(inputs: Sequence[Variable], params: Sequence[Parameter],
                        ) -> tuple[Variable, ...]:
                # The check hands fresh Parameters; they replace the link's own.
                with forward_link.init_scope():
                    for name, param in zip(self.param_names, params):
                        setattr(forward_link, name, param)
                return self._forward(forward_link, tuple(inputs), backend_config)

            with LinkTestError.raise_if_fail("backward is not implemented correctly"):
                gradient_check._check_backward_with_params(
                    forward, inputs, grad_outputs, params=params,
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **(self.check_backward_options or {}))

        _retry_at_nondifferentiable_points(self.dodge_nondifferentiable, check)


class LinkInitializersTestCase(_CollectOnlySubclasses, _LinkTestBase, unittest.TestCase):
    """Base class of tests that a link fills its parameters with the initializers it is given.

    Use it with :func:`~chainer_compat.testing.inject_backend_tests`. Override
    ``generate_params``, ``create_link`` and ``generate_inputs`` as for
    :class:`LinkTestCase`, and ``get_initializers(self)``: one list per initializer argument
    of the initializer-likes to try (wrap arguments that are not initializers, such as None,
    in :class:`InitializerArgument`). Each is tried in turn, the other arguments taken from
    ``generate_params``, and the parameter named at the same position of ``param_names``
    must equal what the expected initializer produces. A mismatch raises
    :class:`LinkTestError`; ``check_initializers_options`` goes to ``assert_allclose``.
    """

    __test__ = False
    _toolkit_base = True

    check_initializers_options: dict[str, Any] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.check_initializers_options = dict(type(self).check_initializers_options or {})
        super().__init__(*args, **kwargs)

    def get_initializers(self) -> Sequence[Sequence[Any]]:
        """Returns, per initializer argument, the initializer-likes to test."""
        raise NotImplementedError("get_initializers is not implemented.")

    def test_initializers(self, backend_config: Any) -> None:
        """Tests every initializer of ``get_initializers`` on its parameter."""
        self.backend_config = backend_config
        self.before_test("test_initializers")
        for param_index, candidates in enumerate(self._get_initializers()):
            initializers = list(self._generate_params())
            for initializer in candidates:
                initializers[param_index] = initializer
                self._test_single_initializer(param_index, initializers, backend_config)

    def _get_initializers(self) -> Sequence[Sequence[Any]]:
        per_param = self.get_initializers()
        if not isinstance(per_param, (tuple, list)):
            raise TypeError("`get_initializers` must return a tuple or a list.")
        for candidates in per_param:
            if not isinstance(candidates, (tuple, list)):
                raise TypeError(
                    "`get_initializers` must return a tuple or a list of tuples or lists.")
            for initializer in candidates:
                _check_generated_initializer(initializer)
        return per_param

    def _test_single_initializer(self, param_index: int, initializers: Sequence[Any],
                                 backend_config: Any) -> None:
        link, _, _ = self._create_initialized_link(initializers, backend_config)
        param = _link_params(link, self.param_names)[param_index]
        actual = backend.CpuDevice().send(param.array)
        expected = numpy.empty_like(actual)
        _expected_initializer(initializers[param_index])(expected)
        _check_arrays_equal((expected,), (actual,), LinkTestError,
                            **(self.check_initializers_options or {}))
