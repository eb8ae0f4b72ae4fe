"""Old-style ``Function`` (backward on arrays) and the ``FunctionAdapter`` that puts it in a graph.

Layer 7: imports configuration, backend, function_hook, variable and function_node. The legacy
names ``no_backprop_mode``, ``force_backprop_mode`` and ``FunctionHook`` are re-exported here.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Iterable
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat import function_node as _function_node_module
from chainer_compat.configuration import force_backprop_mode, no_backprop_mode
from chainer_compat.configuration import thread_flags as _thread_flags
from chainer_compat.function_hook import FunctionHook, HookHandle
from chainer_compat.function_node import _ALL_INDEXES, FunctionNode, _InstanceTypeCheck
from chainer_compat.variable import Variable, VariableNode, _check_grad_type, _new_unlinked_variable

# FunctionHook and the two mode helpers are re-exported for legacy ``chainer.function`` imports.
__all__ = ["Function", "FunctionAdapter", "FunctionHook", "force_backprop_mode",
           "no_backprop_mode"]

_ndarray = numpy.ndarray
_new = object.__new__
_weakref = weakref.ref
_no_saved_array_checks = _function_node_module._NoSavedArrayChecks

# ``retain_inputs`` argument meaning "every input", shared for the common small input counts.
_ALL_INPUTS = _ALL_INDEXES
_FIRST_ONLY = _ALL_INDEXES[1]


class _EveryInput(tuple):  # type: ignore[type-arg]
    """Every input's index, kept by default rather than asked for (nine inputs or more)."""


class _MissingGradient(ValueError, IndexError):
    """An old-style backward returned no gradient for an input that needs one.

    compat: Chainer's adapter fails there with IndexError (indexing the returned tuple); the
    ValueError base keeps ``except`` clauses written for the message's kind of error working.
    """

class FunctionAdapter(FunctionNode):
    """The :class:`FunctionNode` that stands for an old-style :class:`Function` in the graph.

    It delegates forward, backward, the type check and the label to the wrapped Function and
    converts between the Function's arrays and the Variables the engine works with.

    Ownership is reversed when the Function is applied (see NOTE [adapter ownership]): until
    then the Function owns its adapter and the adapter refers to it weakly; from then on the
    adapter (and with it the graph) owns the Function, which keeps only a weak reference back.

    Args:
        function: The Function to wrap.
    """

    _old_style = True

    # NOTE [adapter ownership]
    # compat: Chainer's ownership swap. The graph must keep an applied Function alive (its
    # backward runs after the user dropped it) and must free it with the graph; a Function that
    # was never applied must free its adapter when it goes. So exactly one side holds the other
    # strongly: Function._owned_node -> adapter before the call, adapter._function -> Function
    # after it, the other direction always being a weak reference. No cycle is ever created, so
    # both are freed by reference counting alone.
    #
    # The weak reference from an applied Function back to its adapter is, on the fast path, the
    # adapter's own weak reference(s) to its outputs, shared (``Function._outputs_link``): from
    # a live output node, ``_creator_node`` leads to the adapter. That saves an object per
    # old-style node for the cyclic garbage collector (see NOTE [compact links]). Once the
    # adapter is handed out through ``Function.node`` (or the adapter is applied directly), the
    # Function keeps a true weak reference to it, so it stays reachable as long as it lives.
    # compat: the one difference from Chainer is an adapter that outlives all its outputs and
    # was only ever reached from the graph side (``y.creator_node``); ``Function.node`` then
    # makes a fresh adapter, as Chainer does once its weak reference is dead.
    _function: Function | None = None
    _weak_function: Any = None

    def __init__(self, function: Function) -> None:
        super().__init__()
        self._weak_function = _weakref(function)
        function._owned_node = self
        if function._outputs_link is None:
            function._outputs_link = ()  # no longer fresh: see Function._outputs_link

    @property
    def function(self) -> Function | None:
        """The wrapped Function, or None if it was never applied and has been collected."""
        function = self._function
        if function is not None:
            return function
        weak_function = self._weak_function
        return None if weak_function is None else weak_function()

    @property
    def _old_style_function(self) -> Function | None:
        # Read by VariableNode.creator, which reports the Function rather than this adapter.
        return self.function

    @property
    def label(self) -> str:
        function = self.function
        return "FunctionAdapter" if function is None else function.label

    @property
    def _impl_name(self) -> str:
        function = self.function
        return "FunctionAdapter" if function is None else type(function).__name__

    def __new__(cls, function: Function | None = None) -> FunctionAdapter:
        # A Function that defines a type check gets the adapter class that runs it; the others
        # get this class, whose inherited no-op check FunctionNode.apply skips for free.
        if cls is FunctionAdapter and function is not None and _checks_types(function):
            cls = _TypeCheckingAdapter
        return super().__new__(cls)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Subclasses (a user's, or _TypeCheckingAdapter) run the Function's type check, as
        # Chainer's FunctionAdapter does, unless they define their own.
        super().__init_subclass__(**kwargs)
        if "check_type_forward" not in cls.__dict__:
            cls.check_type_forward = _run_functions_type_check  # type: ignore[method-assign,assignment]

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Runs the Function's forward; every input is retained unless it asks otherwise."""
        function = self._function
        if function is None:
            function = self._take_function()
        # compat: old-style functions retain all inputs by default.
        count = len(inputs)
        self._input_indexes_to_retain = (
            _ALL_INPUTS[count] if count < 9 else _EveryInput(range(count)))
        if type(function).forward is not _function_base_forward:
            return function.forward(inputs)
        # Function.forward's dispatch, inlined: this runs once per old-style node.
        for array in inputs:
            if type(array) is not _ndarray and backend.is_cupy_array(array):
                return function.forward_gpu(inputs)
        return function.forward_cpu(inputs)

    @property
    def _keeps_every_input(self) -> bool:
        """Whether forward kept the inputs by default, without calling retain_inputs."""
        indexes = self._input_indexes_to_retain
        count = len(indexes)
        if count == 0:  # retain_inputs(()) passes the same (shared) empty tuple
            return False
        return indexes is _ALL_INPUTS[count] if count < 9 else type(indexes) is _EveryInput

    def _take_function(self) -> Function:
        """Swaps ownership for an adapter applied directly rather than through Function()."""
        function = self.function
        if function is None:
            raise RuntimeError(
                "the Function wrapped by this FunctionAdapter must be alive to apply it, got a "
                "collected one: keep a reference to the Function and call it instead")
        # compat: NOTE [adapter ownership], as in Function.__call__.
        self._function = function
        self._weak_function = None
        function._node = _weakref(self)
        if function._owned_node is self:
            function._owned_node = None
        if function._outputs_link is None:
            function._outputs_link = ()  # no longer fresh: see Function._outputs_link
        return function

    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Variable | None, ...]) -> tuple[Variable | None, ...]:
        """Runs the Function's backward on arrays and wraps the gradients into Variables.

        The Function gets the retained input arrays (None for the others) and the output
        gradient arrays (None where no gradient flows back), and returns one gradient array (or
        None) per input.

        Raises:
            TypeError: If the Function's backward does not return a tuple (or list) of arrays,
                or a gradient's array type or dtype does not match its input.
            ValueError: If it returns a wrong number of gradients or a gradient of a wrong
                shape.
        """
        function: Any = self._function
        input_nodes: Any = self._graph_inputs  # NOTE [compact links]
        checker = _function_node_module._saved_arrays
        node: Any = None  # the one input, when unrolled
        if type(input_nodes) is VariableNode and len(grad_outputs) == 1:
            # One input and one output, the commonest old-style Function: the loops below,
            # unrolled.
            node = input_nodes
            count = 1
            data = node._data if self._input_indexes_to_retain else None
            if data is not None and checker is not _no_saved_array_checks:
                records = self._saved_records
                # The checker's lone record, verified inline (NOTE [saved records] in
                # autograd/_saved_arrays.py) and then retired (NOTE [checked once]); anything
                # else goes to the checker, as below.
                if (type(records) is bytes and self._saved_lone_array is data
                        and checker.lone_records and data.tobytes() == records):
                    self._saved_records = None
                    self._saved_lone_array = None
                else:
                    preserved = checker.on_read(self, node)
                    if preserved is not None:
                        data = preserved._array
            gy = grad_outputs[0]
            gy_data = None if gy is None else gy._array
            on_numpy = ((data is None or type(data) is _ndarray)
                        and (gy_data is None or type(gy_data) is _ndarray))
            in_data: tuple[Any, ...] = (data,)
            grad_data: tuple[Any, ...] = (gy_data,)
        else:
            if type(input_nodes) is VariableNode:
                input_nodes = (input_nodes,)
            count = len(input_nodes)
            in_data, grad_data, on_numpy = self._backward_arguments(input_nodes, grad_outputs)

        if on_numpy and type(function).backward is _function_base_backward:
            # Function.backward's dispatch, inlined for the common case.
            input_grads = function.backward_cpu(in_data, grad_data)
        elif on_numpy or (device := backend.cuda_device_to_enter(in_data + grad_data)) is None:
            input_grads = function.backward(in_data, grad_data)
        else:
            with device:
                input_grads = function.backward(in_data, grad_data)

        if type(input_grads) is not tuple:
            input_grads = self._as_grad_tuple(input_grads)
        if node is not None and len(input_grads) >= 1 and target_input_indexes == _FIRST_ONLY:
            # The one-input case of the checks and wrapping below, unrolled. compat: Chainer's
            # adapter checks this gradient's dtype and shape here too. The engine runs that same
            # check (_check_grad_type, naming this Function) on every gradient it takes, and a
            # lone input's gradient is always one it takes, so only a direct call of backward
            # (or of backward_accumulate, which calls it) would see the difference: it gets a
            # gradient of the right array type unchecked. That saves a node 2% of its
            # instructions. The array type is still checked here: wrapping a non-array (a float,
            # a list) would fail with an AttributeError instead of the TypeError.
            gx = input_grads[0]
            if gx is not None:
                if type(gx) is not node._array_type:
                    _check_grad_type(self, node, True, gx)  # raises unless equal after all
                gx = _new_unlinked_variable(gx, True)
            if _thread_flags.flags.enable_backprop:
                _OldStyleGradient.connect(self, grad_outputs, [gx])
            return (gx,)
        if node is not None:
            input_nodes = (node,)
        # compat: as Chainer's adapter, read only the gradients of the inputs that need one.
        # Legacy backwards return fewer (none for trailing label inputs) or more (a None too
        # many); only a missing gradient that is needed is an error.
        needed = max(target_input_indexes, default=-1)
        if len(input_grads) <= needed:
            raise _MissingGradient(self._get_error_message(
                f"backward of {self.label} must return a gradient (or None) for input "
                f"{needed}, which needs one, got {len(input_grads)} gradient(s) for {count} "
                "inputs: return one per input"))
        for index, gx in enumerate(input_grads[:count]):
            if gx is not None:
                node = input_nodes[index]
                if (type(gx) is not node._array_type or gx.dtype is not node.dtype
                        or gx.shape != node.shape):
                    _check_grad_type(self, node, True, gx)  # raises unless equal after all

        # Gradients require grad, as Chainer's do: differentiating one again then reaches
        # _OldStyleGradient and fails loudly, instead of treating it as a constant.
        result = []
        for index in target_input_indexes:
            gx = input_grads[index]
            result.append(None if gx is None else _new_unlinked_variable(gx, True))
        if _thread_flags.flags.enable_backprop:
            _OldStyleGradient.connect(self, grad_outputs, result)
        return tuple(result)

    def _backward_arguments(self, input_nodes: tuple[VariableNode, ...],
                            grad_outputs: tuple[Variable | None, ...]
                            ) -> tuple[tuple[Any, ...], tuple[Any, ...], bool]:
        """The retained input arrays and output gradient arrays for the Function's backward.

        Returns them with whether all of them are NumPy arrays (or None).
        """
        on_numpy = True
        checker = _function_node_module._saved_arrays
        in_list: list[Any] = [None] * len(input_nodes)
        for index in self._input_indexes_to_retain:
            node = input_nodes[index]
            data = node._data
            if data is not None:
                if checker is not _no_saved_array_checks:
                    # The checker raises on an array modified in place since forward, or
                    # hands back the value it preserved (allow_mutation_on_saved_tensors).
                    preserved = checker.on_read(self, node)
                    if preserved is not None:
                        data = preserved._array
                if type(data) is not _ndarray:
                    on_numpy = False
            in_list[index] = data
        grad_list: list[Any] = []
        for gy in grad_outputs:
            if gy is None:
                grad_list.append(None)
            else:
                array = gy._array
                if type(array) is not _ndarray:
                    on_numpy = False
                grad_list.append(array)
        return tuple(in_list), tuple(grad_list), on_numpy

    def _as_grad_tuple(self, input_grads: Any) -> tuple[Any, ...]:
        if type(input_grads) is list:
            return tuple(input_grads)
        hint = (" (wrap a single gradient as (gx,))"
                if isinstance(input_grads, _ndarray) or backend.is_cupy_array(input_grads)
                else "")
        raise TypeError(self._get_error_message(
            f"backward of {self.label} must return a tuple of gradient arrays, got "
            f"{type(input_grads).__name__}{hint}"))


def _run_functions_type_check(self: FunctionAdapter, in_types: Any) -> None:
    """Runs the wrapped Function's ``check_type_forward``."""
    function = self.function
    if function is not None:
        function.check_type_forward(in_types)


class _TypeCheckingAdapter(FunctionAdapter):
    """The adapter of a Function that defines ``check_type_forward``: it runs that check."""


def _checks_types(function: Function) -> bool:
    # A check assigned to the instance counts too: NOTE [checks assigned to instances].
    return (type(function).check_type_forward is not _function_base_check_type_forward
            or _function_node_module._checks_assigned
            and function._assigned_type_check is not None)


class _OldStyleGradient(FunctionNode):
    """Creator of the gradients an old-style backward returns while backprop is recorded.

    A Function's backward works on arrays, so its gradients carry no record of how they depend
    on the inputs and the output gradients. This node stands in for that missing record: a
    second differentiation that reaches it raises instead of silently dropping those terms.

    Compat: Chainer raises the same error, but only from ``Variable.backward`` (through its
    leaf-gradient check); its ``chainer.grad`` silently returns None there. Both raise here.
    """

    def __init__(self, function_label: str) -> None:
        super().__init__()
        self._function_label = function_label

    @property
    def label(self) -> str:
        return f"{self._function_label} (old-style gradient)"

    @classmethod
    def connect(cls, adapter: FunctionAdapter, grad_outputs: tuple[Variable | None, ...],
                input_grads: list[Variable | None]) -> None:
        """Makes a new node the creator of ``input_grads``, depending on what they came from."""
        nodes = list(adapter.inputs)  # type: ignore[arg-type]
        nodes.extend([gy.node for gy in grad_outputs if gy is not None])
        node = cls(adapter.label)
        rank = max([x.rank for x in nodes], default=0)
        node.rank = rank
        node.inputs = tuple(nodes)
        outputs = []
        for gx in input_grads:
            if gx is not None:
                gx_node = gx.node
                gx_node.set_creator_node(node)
                outputs.append(_weakref(gx_node))
        node.outputs = tuple(outputs)
        node._output_count = len(outputs)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise RuntimeError(
            f"{self.label} is a placeholder in the graph and must not be applied")

    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Variable | None, ...]) -> tuple[Variable | None, ...]:
        raise RuntimeError(
            f'cannot twice-differentiate an old style Function "{self._function_label}": '
            "its backward works on arrays, so its gradients cannot be differentiated again. "
            "Rewrite it as a chainer.FunctionNode whose backward uses Variables (or "
            "chainer.functions) to use it in double backprop.")


class Function:
    """Old-style differentiable function: forward and backward both work on arrays.

    Subclass it and implement :meth:`forward` and :meth:`backward`, or the CPU/GPU pairs
    :meth:`forward_cpu`/:meth:`forward_gpu` and :meth:`backward_cpu`/:meth:`backward_gpu`;
    then call the instance on Variables or arrays. Each call puts a :class:`FunctionAdapter`
    into the graph. Unlike :class:`~chainer_compat.FunctionNode`, every input array is kept for
    backward unless :meth:`retain_inputs` says otherwise, backward computes the gradients of all
    inputs, and the result cannot be differentiated twice.
    """

    # compat: class-level defaults, because subclasses rarely call Function.__init__.
    # See NOTE [adapter ownership].
    _node: Any = None  # a weak reference to the adapter, once one was handed out
    _owned_node: FunctionAdapter | None = None
    # The adapter's weak references to its outputs, shared; the adapter itself during a call.
    # None only while the Function never had an adapter (then _node and _owned_node are None
    # too), so that __call__ recognises a fresh Function by this one attribute; () once it had
    # one but holds no link.
    _outputs_link: Any = None

    def __call__(self, *inputs: Any) -> Any:
        """Applies the function to the inputs and records it in the graph.

        Args:
            inputs: Variables or NumPy/CuPy arrays (arrays are wrapped into Variables).

        Returns:
            One Variable, or a tuple of Variables when the function has several outputs.
        """
        node: FunctionAdapter | None
        if self._outputs_link is None:
            # A fresh Function, the common case. FunctionNode keeps its state in class-level
            # defaults, so skipping FunctionAdapter.__init__ (which only sets the weak
            # reference) is safe.
            # (_checks_types, inlined: one call less on every old-style application.)
            node = _new(FunctionAdapter if type(self).check_type_forward
                        is _function_base_check_type_forward and (
                            not _function_node_module._checks_assigned
                            or self._assigned_type_check is None) else _TypeCheckingAdapter)
        else:
            node = self._owned_node
            if node is not None:
                self._owned_node = None
                node._weak_function = None
                self._node = _weakref(node)
            else:
                node = self._applied_node()
                if node is None:
                    node = _new(FunctionAdapter)
            if type(node) is FunctionAdapter and _checks_types(self):
                # A new adapter, or one made before a check was assigned to the Function (NOTE
                # [checks assigned to instances]): it becomes the adapter that runs the check.
                node.__class__ = _TypeCheckingAdapter
        # compat: the ownership swap of NOTE [adapter ownership]: the adapter owns us now.
        node._function = self
        # While it runs, forward reaches the adapter (retain_inputs, retain_outputs) through
        # the link itself; the cycle this makes lasts only for the call.
        self._outputs_link = node
        try:
            outputs = node.apply(inputs)
        finally:
            link = node._graph_outputs  # None when no graph was recorded
            self._outputs_link = () if link is None else link
        if len(outputs) == 1:
            return outputs[0]
        return outputs

    def _as_function_node(self) -> FunctionAdapter:
        # Lets ``variable.creator = function`` store the adapter, as Chainer does.
        return self.node

    # ----------------------------------------------------------------------------- graph
    @property
    def node(self) -> FunctionAdapter:
        """The :class:`FunctionAdapter` standing for this function (created on first use)."""
        node = self._applied_node()
        if node is not None:
            return node
        node = self._owned_node
        if node is None:
            node = FunctionAdapter(self)
        return node

    def _applied_node(self) -> FunctionAdapter | None:
        """The adapter this function was last applied through, if it is still alive.

        See NOTE [adapter ownership] for how it is found without a weak reference of its own.
        """
        weak_node = self._node
        if weak_node is not None:
            node = weak_node()
            if node is not None:
                return node
        link = self._outputs_link
        if link is None:
            return None
        if isinstance(link, FunctionAdapter):  # called from this function's forward
            return link
        for ref in ((link,) if type(link) is _weakref else link):
            output = ref()
            creator = None if output is None else output._creator_node
            if isinstance(creator, FunctionAdapter) and creator._function is self:
                self._node = _weakref(creator)  # handed out: a true weak reference from now on
                return creator
        return None

    @property
    def inputs(self) -> tuple[VariableNode, ...] | None:
        """The input VariableNodes of the last application."""
        return self.node.inputs

    @property
    def outputs(self) -> tuple[Any, ...] | None:
        """Weak references to the output VariableNodes of the last application."""
        return self.node.outputs

    @property
    def rank(self) -> int:
        """Topological rank of the function's node."""
        return self.node.rank

    @property
    def stack(self) -> Any:
        """Where the function was applied (recorded in debug mode only)."""
        return self.node.stack

    @property
    def label(self) -> str:
        """Short text naming the function; the class name unless overridden."""
        return type(self).__name__

    @property
    def local_function_hooks(self) -> dict[str, FunctionHook]:
        """Hooks registered to this function only, by name, in registration order."""
        return self.node.local_function_hooks

    @property
    def output_data(self) -> tuple[Any, ...]:
        """The output arrays kept by :meth:`retain_outputs`, None for the others.

        Raises:
            RuntimeError: If forward did not call :meth:`retain_outputs` (or the graph that
                held the outputs is gone).
        """
        node = self.node
        if node._retained_output_data is None:
            raise RuntimeError(
                f"output_data of {self.label} must be retained to be read, got no retained "
                "outputs (forward did not call retain_outputs, or the graph was released): "
                "call self.retain_outputs((0,)) in forward with the indexes backward needs")
        return node.output_data  # checked for in-place writes, as the retained inputs are

    def unchain(self) -> None:
        """Removes the function's node from the graph: its outputs become roots."""
        self.node.unchain()

    # ----------------------------------------------------------------------------- hooks
    def add_hook(self, hook: FunctionHook, name: str | None = None) -> HookHandle:
        """Registers a hook for this function only; see :meth:`FunctionNode.add_hook`."""
        return self.node.add_hook(hook, name)

    def delete_hook(self, name: str) -> None:
        """Unregisters this function's hook of that name.

        Raises:
            KeyError: If no hook of that name is registered to this function.
        """
        self.node.delete_hook(name)

    # ----------------------------------------------------------------------------- forward
    # A check assigned to an instance runs: NOTE [checks assigned to instances].
    check_type_forward = _InstanceTypeCheck()
    _assigned_type_check: Any = None

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the output arrays; dispatches to forward_cpu/forward_gpu by array type.

        Args:
            inputs: Tuple of input arrays.

        Returns:
            Tuple of output arrays (a tuple even for one output).
        """
        for array in inputs:
            if type(array) is not _ndarray and backend.is_cupy_array(array):
                return self.forward_gpu(inputs)
        return self.forward_cpu(inputs)

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the outputs from NumPy arrays."""
        raise NotImplementedError(
            f"{self.label} must implement forward() or forward_cpu() for NumPy inputs")

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the outputs from CuPy arrays."""
        raise NotImplementedError(
            f"{self.label} must implement forward() or forward_gpu() for CuPy inputs")

    def retain_inputs(self, indexes: Iterable[int]) -> None:
        """Keeps only these input arrays for backward (call it in forward).

        Without a call every input is kept; ``retain_inputs(())`` keeps none, and backward then
        gets None in their places.
        """
        self.node.retain_inputs(indexes)

    def retain_outputs(self, indexes: Iterable[int], retain_after_backward: bool = False) -> None:
        """Keeps these output arrays for backward, in :attr:`output_data` (call it in forward).

        Args:
            indexes: Indexes of the outputs backward needs.
            retain_after_backward: Ignored (deprecated in Chainer).
        """
        if retain_after_backward:
            warnings.warn("retain_after_backward option has no effect", DeprecationWarning,
                          stacklevel=1)
        self.node.retain_outputs(indexes)

    # ----------------------------------------------------------------------------- backward
    def backward(self, inputs: tuple[Any, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the input gradient arrays; dispatches to backward_cpu/backward_gpu.

        Args:
            inputs: The retained input arrays (None for inputs not retained).
            grad_outputs: The output gradient arrays (None where no gradient flows back).

        Returns:
            One gradient array or None per input.
        """
        for array in inputs + grad_outputs:
            if (type(array) is not _ndarray and array is not None
                    and backend.is_cupy_array(array)):
                return self.backward_gpu(inputs, grad_outputs)
        return self.backward_cpu(inputs, grad_outputs)

    def backward_cpu(self, inputs: tuple[Any, ...],
                     grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the input gradients from NumPy arrays; the default returns Nones."""
        return (None,) * len(inputs)

    def backward_gpu(self, inputs: tuple[Any, ...],
                     grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the input gradients from CuPy arrays; the default returns Nones."""
        return (None,) * len(inputs)


_function_base_check_type_forward = Function.check_type_forward
_function_base_forward = Function.forward
_function_base_backward = Function.backward
