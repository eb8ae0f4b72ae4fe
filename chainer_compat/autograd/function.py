"""The ctx-style ``Function``: static ``forward(ctx, ...)`` and ``backward(ctx, ...)``, applied
by ``apply``.

Layer 7: imports configuration, backend, variable, function_node and the saved-array checker.
Each ``apply`` builds one FunctionNode (of a subclass named after the Function) holding a fresh
:class:`FunctionCtx`, so ctx functions share the engine, ranks and hooks of every other node.
"""

from __future__ import annotations

import weakref
from typing import Any, NoReturn

import numpy

from chainer_compat import backend
from chainer_compat.autograd import _saved_arrays
from chainer_compat.configuration import thread_flags as _thread_flags
from chainer_compat.function_node import FunctionNode
from chainer_compat.variable import Variable, _new_unlinked_variable, _new_variable

__all__ = ["Function", "FunctionCtx"]

_ndarray = numpy.ndarray
_generic = numpy.generic
_new = object.__new__
_weakref = weakref.ref
_checker = _saved_arrays.SavedArrayChecker

# Kinds of saved entries, resolved when forward returns (see _FunctionNode._resolve_saved).
_INPUT, _OUTPUT, _ARRAY, _VARIABLE = range(4)
_INPUT_ENTRIES = tuple((_INPUT, index) for index in range(8))
_SAVED_FIRST_INPUT = (_INPUT_ENTRIES[0],)
_FIRST = (0,)
_NEEDS_ONE = {False: (False,), True: (True,)}


def _is_array(value: Any) -> bool:
    return isinstance(value, _ndarray) or backend.is_cupy_array(value)


class FunctionCtx:
    """The context one application of a :class:`Function` shares between forward and backward.

    A fresh ctx is made by every ``apply``. Besides the verbs below, any attribute may be set on
    it in forward and read in backward (``ctx.axis = axis``).

    Attributes:
        needs_input_grad: A bool per positional argument of ``apply``: True for a Variable
            that requires a gradient, False for anything else.
    """

    # Slots for what every apply sets; the rarely set flags are class defaults that move into
    # the instance dict (created only then, or for the user's own attributes) when set.
    __slots__ = (
        "__dict__",
        "__weakref__",
        "_function",
        "_in_forward",
        "_node",
        "_saved",
        "needs_input_grad",
    )
    _non_differentiable: Any = None
    _materialize_grads = True

    def __init__(self) -> None:
        self.needs_input_grad: tuple[bool, ...] = ()
        self._function: Any = None
        self._saved: Any = None
        self._in_forward = False
        self._node: Any = None  # the graph node, set only while its backward runs

    # ----------------------------------------------------------------------------- forward
    def save_for_backward(self, *xs: Any) -> None:
        """Keeps arrays (or Variables) for backward, which reads them as :attr:`saved_tensors`.

        Call it in forward; a second call replaces the first. An input or output array of
        forward comes back as its Variable in the graph (so backward written with Variables can
        be differentiated again); any other array comes back as a
        constant Variable; None comes back as None. Every saved array is checked for in-place
        writes when backward reads it (see :class:`~chainer_compat.autograd.VersionMismatch`).

        Raises:
            RuntimeError: If called outside forward.
            TypeError: If an argument is not an array, a Variable or None (raised as forward
                returns).
        """
        if not self._in_forward:
            raise RuntimeError(
                f"save_for_backward of {self._name} must be called inside forward, got a call "
                "outside it: save what backward needs in forward, or set it as an ordinary ctx "
                "attribute")
        self._saved = xs

    def mark_non_differentiable(self, *outputs: Any) -> None:
        """Declares output arrays of forward that no gradient flows back through.

        Their Variables do not require grad, and backward receives zeros (or None when
        :meth:`set_materialize_grads` is off) as their gradients. Call it in forward with the
        arrays forward returns.

        Raises:
            RuntimeError: If called outside forward.
        """
        if not self._in_forward:
            raise RuntimeError(
                f"mark_non_differentiable of {self._name} must be called inside forward, got a "
                "call outside it: call it with the output arrays before forward returns them")
        self._non_differentiable = outputs

    def mark_dirty(self, *arrays: Any) -> None:
        """Declares arrays that forward modified in place (its inputs, typically).

        Functions that saved those arrays earlier raise
        :class:`~chainer_compat.autograd.VersionMismatch` when their backward reads them,
        whatever the arrays' size. This function's own saves are taken after forward and are
        not affected.

        Raises:
            RuntimeError: If called outside forward.
        """
        if not self._in_forward:
            raise RuntimeError(
                f"mark_dirty of {self._name} must be called inside forward, got a call outside "
                "it: outside a Function use chainer_compat.autograd.graph.increment_version")
        _saved_arrays.increment_version(*arrays)

    def set_materialize_grads(self, value: bool) -> None:
        """Sets whether backward gets zeros (True, the default) or None for missing gradients.

        A gradient is missing for an output that nothing downstream differentiated, and always
        for a non-differentiable output.
        """
        self._materialize_grads = bool(value)

    # ----------------------------------------------------------------------------- backward
    @property
    def saved_tensors(self) -> tuple[Variable | None, ...]:
        """The values given to :meth:`save_for_backward`, in order, as Variables.

        Inputs and outputs of forward come back as their Variables in the graph, so backward
        written with Variable operations can be differentiated again.

        Raises:
            RuntimeError: If read in forward, or after the graph was freed (or never recorded).
            VersionMismatch: If a saved array was modified in place after forward.
        """
        node = self._node
        if node is None or node.inputs is None:
            self._raise_unreadable()
        saved = self._saved
        if saved is None:
            return ()
        if saved is _SAVED_FIRST_INPUT:
            # The common case: forward saved its first input.
            input_node = node.inputs[0]
            variable = _checker.on_read(node, input_node)
            return (input_node.get_variable() if variable is None else variable),
        return node._read_saved(saved)

    def _raise_unreadable(self) -> NoReturn:
        if self._in_forward:
            raise RuntimeError(
                f"saved_tensors of {self._name} must be read in backward, got a read inside "
                "forward: forward already has the arrays it saves")
        if self._node is not None:
            where = "a graph that was freed (unchain() or unchain_backward() cut it)"
        else:
            where = ("a read outside backward (after it, or where no graph was recorded, "
                     "as under no_backprop_mode)")
        raise RuntimeError(
            f"saved_tensors of {self._name} must be read inside its backward while the graph "
            f"is alive, got {where}: read saved_tensors in backward before cutting the graph, "
            "and keep anything needed later as an ordinary ctx attribute")

    # ----------------------------------------------------------------------------- misc
    @property
    def _name(self) -> str:
        function = self._function
        return "Function" if function is None else function.__name__


class _FunctionNode(FunctionNode):
    """The graph node of one application of a :class:`Function`; subclassed per Function.

    See NOTE [ctx node] for what it stores.
    """

    # NOTE [ctx node]
    # The node owns its ctx; the ctx refers to the node only while the node's backward runs
    # (ctx._node), so saving outputs (whose nodes point at this node as their creator) never
    # leaves a cycle, and no weak reference has to be made per apply. Saved inputs and outputs
    # are kept by FunctionNode's own retain_inputs/retain_outputs (so hooks and the saved-array
    # checker see them as for any node); other saved arrays stay in the ctx's entries. The
    # subclass per Function carries its name (the label hooks and errors show) and its
    # forward/backward.
    _ctx: FunctionCtx
    _function: Any = None
    _forward_args: Any = None
    _positions: Any = None
    _non_differentiable_indexes: Any = None
    _output_specs: Any = None
    _saved_others: Any = None
    _saved_records: Any = None  # see NOTE [saved records]

    def _set_arguments(self, ctx: FunctionCtx, args: tuple[Any, ...]) -> Any:
        """Sorts the arguments of apply; returns the node's inputs (its Variables and arrays).

        Sets ``ctx.needs_input_grad`` and, when plain values are among the arguments, keeps
        forward's argument list (arrays in place of Variables) and where the inputs sit in it.
        """
        needs_input_grad = []
        plain = False
        for x in args:
            if isinstance(x, Variable):
                needs_input_grad.append(x._node._requires_grad)
            else:
                needs_input_grad.append(False)
                if type(x) is not _ndarray and not _is_array(x):
                    plain = True
        ctx.needs_input_grad = tuple(needs_input_grad)
        if not plain:
            return args
        forward_args = []
        positions = []
        inputs = []
        for position, x in enumerate(args):
            if isinstance(x, Variable):
                positions.append(position)
                inputs.append(x)
                forward_args.append(x._array)
            elif _is_array(x):
                positions.append(position)
                inputs.append(x)
                forward_args.append(x)
            else:
                forward_args.append(x)
        self._forward_args = tuple(forward_args)
        self._positions = tuple(positions)
        return inputs

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Runs the Function's forward with the arrays (and plain values) it was applied to."""
        ctx = self._ctx
        args = self._forward_args
        if args is None:
            args = inputs
        else:
            self._forward_args = None
        ctx._in_forward = True
        try:
            result = self._function.forward(ctx, *args)
        finally:
            ctx._in_forward = False
        if type(result) is _ndarray:
            outputs: tuple[Any, ...] = (result,)
        elif type(result) is tuple:
            outputs = result
            for y in result:
                if type(y) is not _ndarray:
                    outputs = self._as_output_arrays(result)
                    break
        else:
            outputs = self._as_output_arrays((result,))
        if ctx._saved is not None or ctx._non_differentiable is not None:
            self._resolve_saved(ctx, inputs, outputs)
        if len(outputs) > 1:
            self._output_specs = tuple([(y.shape, y.dtype) for y in outputs])
        return outputs

    def _as_output_arrays(self, result: tuple[Any, ...]) -> tuple[Any, ...]:
        outputs = []
        for y in result:
            if isinstance(y, _generic):
                y = numpy.asarray(y)  # a 0-d ufunc result
            elif not _is_array(y):
                hint = " (return y.array, or compute with arrays)" if isinstance(y, Variable) \
                    else ""
                raise TypeError(
                    f"forward of {self.label} must return an array or a tuple of arrays, got "
                    f"{type(y).__name__}{hint}")
            outputs.append(y)
        return tuple(outputs)

    def _resolve_saved(self, ctx: FunctionCtx, inputs: tuple[Any, ...],
                       outputs: tuple[Any, ...]) -> None:
        """Turns what forward saved or marked into entries and retained inputs/outputs."""
        if ctx._non_differentiable is not None:
            self._resolve_non_differentiable(ctx, outputs)
        saved = ctx._saved
        if saved is None:
            return
        if len(saved) == 1 and inputs and saved[0] is inputs[0]:
            ctx._saved = _SAVED_FIRST_INPUT
            self.retain_inputs(_FIRST)
            return
        entries: list[Any] = []
        retained_inputs: list[int] = []
        retained_outputs: list[int] = []
        others = []
        for position, x in enumerate(saved):
            if x is None:
                entries.append(None)
                continue
            index = _index_of(inputs, x)
            if index is not None:
                if index not in retained_inputs:
                    retained_inputs.append(index)
                entries.append(_INPUT_ENTRIES[index] if index < 8 else (_INPUT, index))
                continue
            index = _index_of(outputs, x)
            if index is not None:
                if index not in retained_outputs:
                    retained_outputs.append(index)
                entries.append((_OUTPUT, index))
            elif isinstance(x, Variable):
                entries.append((_VARIABLE, x, x._array))
                if x._array is not None:
                    others.append(x._array)
            elif _is_array(x):
                entries.append((_ARRAY, x))
                others.append(x)
            else:
                raise TypeError(
                    f"save_for_backward arguments of {self.label} must be arrays, Variables or "
                    f"None, got {type(x).__name__} at position {position}: keep other values "
                    "as ctx attributes (ctx.value = value)")
        ctx._saved = tuple(entries)
        if retained_inputs:
            self.retain_inputs(tuple(retained_inputs))
        if retained_outputs:
            self.retain_outputs(tuple(retained_outputs))
        if others:
            self._saved_others = others

    def _resolve_non_differentiable(self, ctx: FunctionCtx, outputs: tuple[Any, ...]) -> None:
        indexes = []
        for array in ctx._non_differentiable:
            index = _index_of(outputs, array)
            if index is None:
                raise ValueError(
                    f"mark_non_differentiable arguments of {self.label} must be output arrays "
                    f"of its forward, got a {type(array).__name__} that forward did not return: "
                    "pass the very arrays forward returns")
            indexes.append(index)
        self._non_differentiable_indexes = frozenset(indexes)
        ctx._non_differentiable = None

    def _after_apply(self, ctx: FunctionCtx, outputs: tuple[Variable, ...]) -> None:
        """Marks non-differentiable outputs and records the saved arrays that are not inputs or
        outputs, once the graph is built (after forward, so forward's own writes are fine)."""
        blocked = self._non_differentiable_indexes
        if blocked is not None:
            for index in blocked:
                outputs[index]._node._requires_grad = False
        if self.inputs is None:
            return  # no graph recorded (no_backprop_mode)
        others = self._saved_others
        if others is not None:
            self._saved_others = None
            _checker.record_arrays(self, others)

    def _read_saved(self, saved: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        """Hands out the saved entries as Variables, checking each array first."""
        result: list[Variable | None] = []
        retained_outputs: Any = None
        on_read = _checker.on_read
        for position, entry in enumerate(saved):
            if entry is None:
                result.append(None)
                continue
            kind = entry[0]
            if kind == _INPUT:
                node = self.inputs[entry[1]]  # type: ignore[index]
                variable = on_read(self, node)
                result.append(node.get_variable() if variable is None else variable)
            elif kind == _OUTPUT:
                index = entry[1]
                node = self.outputs[index]()  # type: ignore[index]
                if node is None:
                    # The output was dropped: FunctionNode resurrects it on its retained array.
                    if retained_outputs is None:
                        retained_outputs = dict(zip(self._output_indexes_to_retain,
                                                    self.get_retained_outputs()))
                    node = retained_outputs[index]._node
                variable = on_read(self, node)
                result.append(node.get_variable() if variable is None else variable)
            elif kind == _ARRAY:
                array = _checker.read_array(self, entry[1], f"saved tensor {position}")
                result.append(_new_variable(array, False))
            else:
                variable, array = entry[1], entry[2]
                if array is not None:
                    checked = _checker.read_array(self, array, f"saved tensor {position}")
                    if checked is not array:
                        variable = _new_variable(checked, False)
                result.append(variable)
        return tuple(result)

    # ----------------------------------------------------------------------------- backward
    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Variable | None, ...]) -> tuple[Variable | None, ...]:
        """Runs the Function's backward and returns Variables for the target inputs."""
        ctx = self._ctx
        if (len(grad_outputs) != 1 or grad_outputs[0] is None
                or self._non_differentiable_indexes is not None):
            grad_outputs = self._prepare_grads(ctx, grad_outputs)
        # The ctx reaches this node only while backward runs: see NOTE [ctx node].
        ctx._node = self
        try:
            result = self._function.backward(ctx, *grad_outputs)
        finally:
            ctx._node = None
        if len(ctx.needs_input_grad) == 1:
            # The common cases: one argument, one gradient.
            if type(result) is Variable:
                return result,
            if type(result) is _ndarray:
                if not _thread_flags.flags.enable_backprop:
                    return _new_unlinked_variable(result, False),
                result = (result,)
        return self._gradients(ctx, target_input_indexes, grad_outputs, result)

    def _gradients(self, ctx: FunctionCtx, target_input_indexes: tuple[int, ...],
                   grad_outputs: tuple[Any, ...], result: Any) -> tuple[Variable | None, ...]:
        """Checks what backward returned and picks Variables for the target inputs."""
        count = len(ctx.needs_input_grad)
        if type(result) is not tuple:
            if type(result) is list:
                result = tuple(result)
            elif count == 1:
                result = (result,)
            else:
                raise ValueError(self._get_error_message(
                    f"backward of {self.label} must return {count} gradients (one per "
                    "positional argument of apply, None for those without one), got one "
                    f"{type(result).__name__}"))
        if len(result) != count:
            raise ValueError(self._get_error_message(
                f"backward of {self.label} must return {_gradients_text(count)} (one per "
                f"positional argument of apply, None for those without one), got "
                f"{len(result)}"))
        positions = self._positions
        grads = []
        arrays_returned = False
        for index in target_input_indexes:
            position = index if positions is None else positions[index]
            gx = result[position]
            if gx is None or isinstance(gx, Variable):
                grads.append(gx)
                continue
            if type(gx) is not _ndarray:
                gx = self._as_grad_array(position, gx)
            arrays_returned = True
            grads.append(gx)
        if arrays_returned:
            if _thread_flags.flags.enable_backprop:
                _OnceDifferentiableGradient.connect(self, grad_outputs, grads)
            else:
                grads = [gx if gx is None or isinstance(gx, Variable)
                         else _new_unlinked_variable(gx, False) for gx in grads]
        return tuple(grads)

    def _as_grad_array(self, position: int, gx: Any) -> Any:
        if isinstance(gx, _generic):
            return numpy.asarray(gx)  # a 0-d ufunc result
        if _is_array(gx):
            return gx
        raise TypeError(self._get_error_message(
            f"gradient {position} returned by backward of {self.label} must be an array, a "
            f"Variable or None, got {type(gx).__name__}"))

    def _prepare_grads(self, ctx: FunctionCtx,
                       grad_outputs: tuple[Variable | None, ...]) -> tuple[Any, ...]:
        """Drops the gradients of non-differentiable outputs and materializes missing ones."""
        blocked = self._non_differentiable_indexes or ()
        reference = None
        for gy in grad_outputs:
            if gy is not None:
                reference = gy._array
                break
        prepared = []
        for index, gy in enumerate(grad_outputs):
            if index in blocked:
                gy = None
            if gy is None and ctx._materialize_grads:
                gy = _new_variable(self._zeros_of_output(index, reference), False)
            prepared.append(gy)
        return tuple(prepared)

    def _zeros_of_output(self, index: int, reference: Any) -> Any:
        node = self.outputs[index]() if self.outputs is not None else None
        if node is not None:
            shape, dtype = node.shape, node.dtype
        else:
            shape, dtype = self._output_specs[index]
        if reference is None or isinstance(reference, _ndarray):
            return numpy.zeros(shape, dtype)
        with backend.get_device_from_array(reference).create_context():
            return backend.get_array_module(reference).zeros(shape, dtype)


def _gradients_text(count: int) -> str:
    return "1 gradient" if count == 1 else f"{count} gradients"


def _index_of(arrays: tuple[Any, ...], array: Any) -> int | None:
    for index, candidate in enumerate(arrays):
        if candidate is array:
            return index
    return None


class _OnceDifferentiableGradient(FunctionNode):
    """Creator of the gradient arrays a ctx backward returns while backprop is recorded.

    Arrays carry no record of how they depend on the inputs and the output gradients; this
    node stands in for it, so a second differentiation that reaches it raises instead of
    silently dropping those terms.
    """

    def __init__(self, function_label: str) -> None:
        self._function_label = function_label

    @property
    def label(self) -> str:
        return f"{self._function_label} (once-differentiable gradient)"

    @classmethod
    def connect(cls, func: _FunctionNode, grad_outputs: tuple[Any, ...],
                grads: list[Any]) -> None:
        """Wraps the arrays in ``grads`` into Variables created by a new node, in place."""
        nodes = list(func.inputs)  # type: ignore[arg-type]
        nodes.extend([gy.node for gy in grad_outputs if gy is not None])
        requires_grad = False
        for x in nodes:
            if x._requires_grad:
                requires_grad = True
                break
        node = cls(func.label)
        rank = max([x.rank for x in nodes], default=0)
        node.rank = rank
        node.inputs = tuple(nodes)
        outputs = []
        for position, gx in enumerate(grads):
            if gx is None or isinstance(gx, Variable):
                continue
            variable = _new_variable(gx, requires_grad)
            variable._node.set_creator_node(node)
            outputs.append(_weakref(variable._node))
            grads[position] = variable
        node.outputs = tuple(outputs)
        node._output_count = len(outputs)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise RuntimeError(f"{self.label} is a placeholder in the graph and must not be applied")

    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Variable | None, ...]) -> tuple[Variable | None, ...]:
        raise RuntimeError(
            f"backward of {self._function_label} must return Variables to be differentiated "
            "twice, got arrays (a once-differentiable backward): compute the gradients with "
            "Variable operations on grad_outputs and ctx.saved_tensors, and return them as "
            "Variables")


class Function:
    """Base class of ctx-style differentiable functions (PyTorch's ``autograd.Function``).

    Subclass it with two static methods and call :meth:`apply`::

        class Square(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, gy):
                x, = ctx.saved_tensors
                return 2 * x * gy

        y = Square.apply(x)

    ``forward`` gets the arrays of the Variables (and arrays) it is applied to, plain values
    unchanged, and returns an array or a tuple of arrays. ``backward`` gets one gradient
    Variable per output and returns one gradient per positional argument of ``apply``: an
    array, a Variable, or None. Returning Variables computed with Variable operations makes the
    function differentiable twice; returning arrays makes it once-differentiable, and a second
    differentiation through it raises. Applications record into the same graph as
    FunctionNodes (same engine, ranks and hooks; the node is labelled with the class name).
    """

    _node_class: Any = None

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any) -> Any:
        """Computes the outputs from arrays; override it as a static method."""
        raise NotImplementedError(
            "a Function must define forward(ctx, *args) as a static method returning arrays")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        """Computes one gradient per positional argument; override it as a static method."""
        raise NotImplementedError(
            "a Function must define backward(ctx, *grad_outputs) as a static method returning "
            "one gradient per positional argument of apply")

    @classmethod
    def apply(cls, *args: Any) -> Any:
        """Runs forward on the arguments and records the application in the graph.

        Args:
            args: Variables, NumPy/CuPy arrays (constants: no gradient), or plain values
                (ints, floats, None, tuples...), which reach forward unchanged and get no
                gradient.

        Returns:
            A Variable for one output (even if forward returned a 1-tuple), else a tuple of
            Variables.
        """
        node_class = cls._node_class
        if node_class is None or node_class._function is not cls:
            node_class = _node_class_for(cls)
        node = _new(node_class)
        # FunctionCtx.__init__, inlined: this runs once per application.
        ctx = _new(FunctionCtx)
        ctx.needs_input_grad = ()
        ctx._saved = None
        ctx._in_forward = False
        ctx._node = None
        ctx._function = cls
        node._ctx = ctx
        if len(args) == 1 and type(args[0]) is Variable:
            ctx.needs_input_grad = _NEEDS_ONE[args[0]._node._requires_grad]
            outputs = node.apply(args)
        else:
            outputs = node.apply(node._set_arguments(ctx, args))
        if ctx._saved is not None or node._non_differentiable_indexes is not None:
            node._after_apply(ctx, outputs)
        if len(outputs) == 1:
            return outputs[0]
        return outputs

    def __call__(self, *args: Any) -> Any:
        raise RuntimeError(
            f"{type(self).__name__} is a ctx-style Function: call {type(self).__name__}.apply"
            "(...) on the class instead of creating and calling an instance")


def _node_class_for(cls: type[Function]) -> type[_FunctionNode]:
    node_class = type(cls.__name__, (_FunctionNode,), {
        "_function": cls, "__module__": cls.__module__, "__qualname__": cls.__qualname__,
        "__doc__": f"Graph node of one application of {cls.__qualname__}."})
    cls._node_class = node_class
    return node_class
