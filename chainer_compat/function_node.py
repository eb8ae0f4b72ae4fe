"""``FunctionNode``: a differentiable operation and its node in the computational graph.

Layer 4: imports configuration, backend, function_hook, utils.type_check and variable.
"""

from __future__ import annotations

import collections
import traceback
import weakref
from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.configuration import thread_flags as _thread_flags
from chainer_compat.function_hook import FunctionHook, HookHandle, _register_hook
from chainer_compat.variable import Variable, VariableNode, _new_node, _new_variable, _PendingNode

_ndarray = numpy.ndarray
_weakref = weakref.ref
_new = object.__new__
# NOTE [shared shapes]
# Every output node records its array's shape, a fresh tuple that the cyclic garbage collector
# tracks until its next pass. Graph nodes share one tuple per distinct shape instead, so a node
# leaves one short-lived object less behind (fewer collections while a large graph is built).
# The table only grows with the number of distinct shapes a process uses.
_shapes: dict[tuple[int, ...], tuple[int, ...]] = {}

# NOTE [grown tuples]
# apply collects its inputs' arrays and nodes, and its outputs, in tuples grown by
# concatenation rather than in lists turned into tuples: concatenating to the empty tuple
# returns the right operand itself, so the common one-input, one-output node builds each tuple
# once and no list at all. Functions have a handful of inputs, so the copying never matters.

# (0, 1, ..., n - 1) for small n: "every input", compared without building a tuple.
_ALL_INDEXES = tuple(tuple(range(count)) for count in range(9))
_FIRST_INPUT = _ALL_INDEXES[1]


class _FallbackType:
    """The value ``forward_chainerx`` returns to ask for the NumPy/CuPy implementation."""

    _instance: _FallbackType | None = None

    def __new__(cls) -> _FallbackType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Fallback"


Fallback = _FallbackType()


def _wrap_input(x: Any, func: FunctionNode, inputs: Any) -> Variable:
    """Wraps a raw array (or None) given to apply() into a Variable that requires no gradient."""
    if type(x) is _ndarray or isinstance(x, _ndarray) or backend.is_cupy_array(x):
        return _new_variable(x, False)
    if x is None:
        # compat: an optional input, as Chainer takes it: forward receives None, and a gradient
        # backward returns for it is dropped (it requires none).
        return Variable(None, requires_grad=False)
    # compat: Chainer's first two lines, which code may match; then what to do.
    actual = ", ".join(str(type(value)) for value in inputs)
    raise TypeError(
        f"incompatible array types are mixed in the forward input ({func.label}).\n"
        f"Actual: {actual}\n"
        f"Inputs of {func.label} must be Variables or NumPy/CuPy arrays, got "
        f"{type(x).__name__}: wrap Python numbers and lists with numpy.asarray()")


def _is_array_like(x: Any) -> bool:
    return isinstance(x, _ndarray) or backend.is_cupy_array(x)


def _contains_nan(array: Any) -> bool:
    if array.dtype.kind not in "fc":
        return False
    xp = backend.get_array_module(array)
    return bool(xp.isnan(array).any())


class _CompactLinks:
    """A FunctionNode's ``inputs`` or ``outputs``: a tuple over a compact attribute.

    The attribute holds a lone link (of ``single_type``) or a tuple of them: NOTE [compact
    links] in FunctionNode.
    """

    def __init__(self, attribute: str, single_type: type, doc: str) -> None:
        self.attribute = attribute
        self.single_type = single_type
        self.__doc__ = doc

    def __get__(self, func: Any, owner: Any = None) -> Any:
        if func is None:
            return self
        links = getattr(func, self.attribute)
        return (links,) if type(links) is self.single_type else links

    def __set__(self, func: Any, links: Any) -> None:
        if links is not None:
            links = tuple(links)
            if len(links) == 1 and type(links[0]) is self.single_type:
                links = links[0]
        setattr(func, self.attribute, links)


def _no_type_check(node: Any, in_types: Any) -> None:
    """Checks the input types with ``utils.type_check``; the default checks nothing."""


_no_type_check.__name__ = _no_type_check.__qualname__ = "check_type_forward"


# Whether any instance was ever given a check of its own: until one is, apply() does not look.
_checks_assigned = False


def _assigned_or_default(node: Any) -> Any:
    assigned = node._assigned_type_check
    return _no_type_check.__get__(node) if assigned is None else assigned


def _assign(node: Any, check: Any) -> None:
    global _checks_assigned
    _checks_assigned = True
    node._assigned_type_check = check


def _unassign(node: Any) -> None:
    if node._assigned_type_check is None:
        raise AttributeError("check_type_forward")
    node._assigned_type_check = None


class _InstanceTypeCheck(property):
    """``check_type_forward`` of ``FunctionNode`` and of ``Function``, for classes that do not
    define their own: reading it on an instance gives the check assigned to that instance, if
    any, else the default, which checks nothing. See NOTE [checks assigned to instances].

    A property, so that reading it from the class (as apply() does) runs no Python code.
    """

    def __init__(self) -> None:
        super().__init__(_assigned_or_default, _assign, _unassign, _no_type_check.__doc__)

    def __call__(self, node: Any, in_types: Any) -> None:
        """``FunctionNode.check_type_forward(node, in_types)``, as a subclass may call it."""


class FunctionNode:
    """A differentiable function and its node in the computational graph.

    Subclasses implement :meth:`forward` (or :meth:`forward_cpu` and :meth:`forward_gpu`) on
    arrays and :meth:`backward` on Variables, and are applied with :meth:`apply`. Applying one
    records it as the creator of its outputs when backprop is enabled; its backward then runs
    exactly once per backprop, after the gradients of all its outputs are known.

    Attributes:
        inputs: Tuple of the input VariableNodes, once applied.
        outputs: Tuple of weak references to the output VariableNodes, once applied.
        rank: Topological rank: the largest rank of the inputs.
        stack: The stack where the node was applied, captured in debug mode.
        lazy_grad_sum: Whether gradients of an input used several times are summed lazily.
    """

    # compat: class-level defaults, because subclasses often skip FunctionNode.__init__.
    # See NOTE [compact links]: read them through ``inputs`` and ``outputs``.
    _graph_inputs: Any = None
    _graph_outputs: Any = None
    rank = 0
    stack: Any = None
    lazy_grad_sum = False
    chainerx_device = None
    _output_count: int | None = None
    _input_indexes_to_retain: Any = None
    _output_indexes_to_retain: Any = None
    _retained_output_data: tuple[Any, ...] | None = None
    _local_function_hooks: dict[str, FunctionHook] | None = None
    _is_chainerx_fallback_mode = False
    # True for the adapters of old-style Functions, whose bad gradients Chainer reports in
    # the words of its Variable checks even in debug mode.
    _old_style = False
    # Fingerprints of the arrays retained for backward (chainer_compat.autograd's checker).
    _saved_records: Any = None
    _saved_lone_array: Any = None  # the array of a lone record (NOTE [saved records])

    # ----------------------------------------------------------------------------- metadata
    # NOTE [compact links]
    # Most nodes have one input and one output. Such a node keeps its input VariableNode and the
    # weak reference to its output node directly, not in 1-tuples: two objects less per node for
    # CPython's cyclic garbage collector to walk each time a full collection runs, which a large
    # graph triggers repeatedly while it grows (see also NOTE [node as weak reference]). The
    # ``inputs`` and ``outputs`` descriptors give the tuples Chainer documents; the engine reads
    # the compact form (``_graph_inputs``, ``_graph_outputs``) directly.
    inputs = _CompactLinks("_graph_inputs", VariableNode,
                           "Tuple of the input VariableNodes, once applied (None before).")
    outputs = _CompactLinks(
        "_graph_outputs", _weakref,
        "Tuple of weak references to the output VariableNodes, once applied (None before).")

    @property
    def local_function_hooks(self) -> dict[str, FunctionHook]:
        """Hooks registered to this function only, by name, in registration order (an
        OrderedDict, as in Chainer; made on first access)."""
        hooks = self._local_function_hooks
        if hooks is None:
            hooks = self._local_function_hooks = collections.OrderedDict()
        return hooks

    @property
    def _n_local_function_hooks(self) -> int:
        hooks = self._local_function_hooks
        return 0 if hooks is None else len(hooks)

    @property
    def label(self) -> str:
        """Short text naming the function; the class name unless overridden."""
        return type(self).__name__

    @property
    def _impl_name(self) -> str:
        return type(self).__name__

    @property
    def output_data(self) -> tuple[Any, ...]:
        """Output arrays retained by :meth:`retain_outputs` (None where not retained).

        Each is checked for in-place writes since forward, as ``get_retained_outputs`` checks
        it (chainer_compat.autograd's saved-array checks).
        """
        if self._retained_output_data is None:
            raise RuntimeError(
                "retained output data is gone: call retain_outputs() in forward to keep it")
        count = self._output_count
        if count is None:
            count = 0 if self.outputs is None else len(self.outputs)
        out_data: list[Any] = [None] * count
        checker = _saved_arrays
        for index, data in zip(self._output_indexes_to_retain, self._retained_output_data):
            if data is not None:
                data = checker.read_array(self, data, f"output {index}")
            out_data[index] = data
        return tuple(out_data)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = type(self).__name__
        if type(self).__module__.startswith("chainer_compat."):
            raise RuntimeError(
                f"Chainer's built-in function class object ({name}) which is derived from "
                "chainer.FunctionNode has been called as if it were a callable. Use "
                "FunctionNode.apply() method instead.\nFurthermore, it's not recommended that "
                "you use built-in function classes directly; use corresponding function aliases "
                "(those with snake_case name, such as F.convolution_nd) instead.")
        raise RuntimeError(
            f"A function class object ({name}) which is derived from chainer.FunctionNode has "
            "been called as if it were a callable. Use apply() method instead.")

    # ----------------------------------------------------------------------------- apply
    def apply(self, inputs: Any) -> tuple[Variable, ...]:
        """Runs forward on the inputs and records this node in the graph.

        Args:
            inputs: Variables or arrays (arrays are wrapped into Variables that need no
                gradient). All arrays must live on one backend.

        Returns:
            A tuple of output Variables.

        Raises:
            TypeError: On a single Variable or array in place of a sequence of inputs, inputs
                that are not arrays, mixed backends, or a forward that does not return a tuple
                of arrays of the inputs' backend.
            chainer_compat.utils.type_check.InvalidType: When ``check_type_forward`` fails.
        """
        # 1. Normalize the inputs: their arrays and nodes, whether any wants a gradient.
        if type(inputs) is not tuple and type(inputs) is not list:
            self._check_inputs_sequence(inputs)
            inputs = tuple(inputs)  # a generator: the loop spends it, _check_input_arrays rereads
        flags = _thread_flags.flags  # this thread's config keys and hooks: NOTE [fast flags]
        # Tuples grown by concatenation, not lists: NOTE [grown tuples].
        in_data: tuple[Any, ...] = ()
        input_nodes: tuple[VariableNode, ...] = ()
        requires_grad = False
        on_numpy = True
        rank = 0
        for x in inputs:
            if type(x) is not Variable and not isinstance(x, Variable):
                x = _wrap_input(x, self, inputs)
            node = x._node
            if type(node) is _PendingNode and flags.enable_backprop:
                node = x._own_node()  # a graph input: NOTE [nodes made on demand]
            if node._requires_grad:
                requires_grad = True
            if node.rank > rank:
                rank = node.rank
            array = x._array
            if type(array) is not _ndarray:
                on_numpy = False
            in_data += (array,)
            input_nodes += (node,)
        if not on_numpy:
            on_numpy = self._check_input_arrays(in_data, inputs)
        debug = flags.debug
        if debug:
            self.stack = traceback.extract_stack()

        # 2. Type-check, only for functions that define a check or were given one.
        if (type(self).check_type_forward is not _base_check_type_forward
                or _checks_assigned and self._assigned_type_check is not None) and flags.type_check:
            self._check_data_type_forward(in_data)

        # 3. Pre-hooks, global then local.
        hooks: Any = flags.hooks
        if hooks or self._local_function_hooks:
            hooks = self._merged_hooks(hooks)
            for hook in hooks:
                hook.forward_preprocess(self, in_data)

        # 4. Forward on the inputs' device.
        # Reset only when set: storing None unconditionally reads faster afterwards, but every
        # node then carries two more values for the cyclic GC to walk, which costs more on
        # large graphs (benchmark (7): 1.30-1.33 -> 1.38-1.42).
        if self._input_indexes_to_retain is not None:
            self._input_indexes_to_retain = None
        if self._output_indexes_to_retain is not None:
            self._output_indexes_to_retain = None
        if on_numpy or (device := backend.cuda_device_to_enter(in_data)) is None:
            outputs = self.forward(in_data)
        else:
            with device:
                outputs = self.forward(in_data)

        # 5. Validate and wrap the outputs (_new_variable inlined: the hottest loop of the
        # package); when backprop is on, they get this node as their creator.
        if type(outputs) is not tuple:
            raise TypeError(
                f"forward output must be a tuple ({self.label})\nActual: {type(outputs)}\n"
                "Return (y,) rather than y or [y].")
        record = flags.enable_backprop
        creator = self if record else None
        out_rank = rank + 1 if record else 0
        ret: tuple[Variable, ...] = ()
        output_link: Any = None  # NOTE [compact links]
        for y in outputs:
            if type(y) is not _ndarray or not on_numpy:
                if y is None:  # NOTE [absent outputs]
                    out = _absent_output(creator, out_rank, requires_grad)
                    ret += (out,)
                    if record:
                        output_link = _linked(output_link, out._node)
                    continue
                self._check_output_array(y, on_numpy, in_data)
            out = _new(Variable)
            out._array = y
            out._grad_var = None
            out._loss_scale = None
            node = _new_node(VariableNode, out)  # NOTE [node as weak reference]
            node._revived = None
            node._data = None
            node.name = None
            node._creator_node = creator
            node.rank = out_rank
            node._requires_grad = requires_grad
            node.dtype = y.dtype
            shape = y.shape
            node.shape = _shapes.setdefault(shape, shape)  # NOTE [shared shapes]
            node._array_type = type(y)
            out._node = node
            ret += (out,)
            if record:  # _linked, inlined
                if output_link is None:
                    output_link = _weakref(node)
                elif type(output_link) is _weakref:
                    output_link = (output_link, _weakref(node))
                else:
                    output_link += (_weakref(node),)

        # 6. Post-hooks.
        if hooks:
            for hook in hooks:
                hook.forward_postprocess(self, in_data)
        if debug:
            self._check_nan_in_outputs(outputs)

        # 7. Connect the graph and retain what backward asked for.
        if record:
            self.rank = rank
            # NOTE [compact links]
            self._graph_inputs = input_nodes[0] if len(input_nodes) == 1 else input_nodes
            self._graph_outputs = output_link if output_link is not None else ()
            retain = self._input_indexes_to_retain
            if retain is not None:
                if retain is _FIRST_INPUT and len(input_nodes) == 1:
                    # One input, kept (old-style Functions keep their inputs by default).
                    array = in_data[0]
                    input_nodes[0]._data = array
                    checker = _saved_arrays
                    if checker is _NoSavedArrayChecks:
                        pass
                    elif (type(array) is _ndarray and checker.lone_records
                            and array.nbytes <= checker.small_nbytes):
                        # _record_kept's lone record, inlined: one per old-style node. It
                        # replaces whatever an earlier application of this node recorded.
                        self._saved_lone_array = array
                        self._saved_records = array.tobytes()
                    else:
                        _record_kept(self, input_nodes, True)
                else:
                    self._retain_inputs_now(input_nodes, in_data)
            if self._output_indexes_to_retain is not None:
                self._retain_outputs_now(ret, outputs, retain is None)
            if flags.lazy_grad_sum:
                self.lazy_grad_sum = True
        return ret

    # The helpers below run only off the fast path.
    def _check_inputs_sequence(self, inputs: Any) -> None:
        """Rejects one Variable or array given to apply() in place of a sequence of inputs.

        Iterating over it would silently apply the function to its rows.
        """
        if isinstance(inputs, Variable) or _is_array_like(inputs):
            raise TypeError(
                f"inputs of {self.label}.apply() must be a tuple or list of Variables or arrays, "
                f"got {type(inputs).__name__}: wrap a single input as apply((x,))")

    def _check_input_arrays(self, in_data: tuple[Any, ...], inputs: Any) -> bool:
        """Validates inputs that are not all plain ndarrays; returns whether they are NumPy.

        ``inputs`` are the inputs as given: a None there is an optional input, not an error.
        """
        gpu = []
        for index, array in enumerate(in_data):
            if backend.is_cupy_array(array):  # first: a CuPy stand-in in tests is an ndarray
                gpu.append(True)
            elif isinstance(array, _ndarray):
                gpu.append(False)
            elif array is None and inputs[index] is None:
                continue
            elif array is None:
                raise TypeError(
                    f"input {index} of {self.label} is an uninitialized Variable (its array is "
                    "None): initialize it (for a Parameter, call initialize(shape)) before use")
            else:
                raise TypeError(
                    f"input {index} of {self.label} must hold a NumPy or CuPy array, got "
                    f"{type(array).__name__}")
        if len(set(gpu)) > 1:
            raise TypeError(
                f"incompatible array types are mixed in the forward input ({self.label}).\n"
                "Actual: " + ", ".join(str(type(a)) for a in in_data) + "\n"
                "Move every input to one device first (to_cpu() or to_gpu()).")
        return not any(gpu)

    def _check_output_array(self, y: Any, on_numpy: bool, in_data: tuple[Any, ...]) -> None:
        if on_numpy and isinstance(y, _ndarray):
            return
        is_gpu = backend.is_cupy_array(y)
        if not (is_gpu or isinstance(y, _ndarray)):
            hint = (" (a NumPy scalar: wrap it with chainer_compat.utils.force_array)"
                    if isinstance(y, numpy.generic) else "")
            raise TypeError(
                f"forward output of {self.label} must be a tuple of arrays, got an element of "
                f"type {type(y).__name__}{hint}")
        if in_data and is_gpu == on_numpy:
            raise TypeError(
                f"forward output of {self.label} must be on the inputs' backend "
                f"({'NumPy' if on_numpy else 'CuPy'}), got {type(y)}")

    def _check_nan_in_outputs(self, outputs: tuple[Any, ...]) -> None:
        for y in outputs:
            if y is not None and _contains_nan(y):
                raise RuntimeError(
                    f"NaN is detected on forward computation of {self.label}"
                    + self._creation_site())

    def _creation_site(self) -> str:
        """The last few frames of user code where this node was applied (debug mode)."""
        if not self.stack:
            return ""
        package = __file__.rsplit("/", 1)[0]
        frames = [f for f in self.stack if not f.filename.startswith(package)][-3:]
        return "\nThe function was applied at:\n" + "".join(traceback.format_list(frames))

    def _merged_hooks(self, global_hooks: dict[str, FunctionHook]) -> list[FunctionHook]:
        local = self._local_function_hooks
        if not local:
            return list(global_hooks.values())
        merged = dict(global_hooks)
        merged.update(local)
        return list(merged.values())

    def _retain_inputs_now(self, input_nodes: tuple[VariableNode, ...],
                           in_data: tuple[Any, ...]) -> None:
        indexes = self._input_indexes_to_retain
        count = len(input_nodes)
        if type(indexes) is tuple and count < 9 and indexes == _ALL_INDEXES[count]:
            # Every input, in order (old-style Functions by default): nothing to check.
            for node, array in zip(input_nodes, in_data):
                node._data = array
            kept: Sequence[VariableNode] = input_nodes
        else:
            if not isinstance(indexes, tuple):  # a tuple subclass keeps its type (_EveryInput)
                indexes = tuple(indexes)
            for index in indexes:
                if not -count <= index < count:
                    raise IndexError(
                        f"retain_inputs index of {self.label} must be in range({count}), "
                        f"got {index}")
                # The node already describes this array (apply just read it): no type update.
                input_nodes[index]._data = in_data[index]
            self._input_indexes_to_retain = indexes
            kept = [input_nodes[i] for i in indexes]
        if _saved_arrays is not _NoSavedArrayChecks:
            _record_kept(self, kept, True)

    def _retain_outputs_now(self, ret: tuple[Variable, ...], outputs: tuple[Any, ...],
                            first_record: bool) -> None:
        indexes = tuple(self._output_indexes_to_retain)
        count = len(ret)
        for index in indexes:
            if not -count <= index < count:
                raise IndexError(
                    f"retain_outputs index of {self.label} must be in range({count}), got {index}")
            ret[index]._node._data = outputs[index]
        self._output_indexes_to_retain = indexes
        self._output_count = count
        self._retained_output_data = tuple([outputs[i] for i in indexes])
        if _saved_arrays is not _NoSavedArrayChecks:
            _record_kept(self, [ret[i]._node for i in indexes], first_record)

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        from chainer_compat.utils import type_check  # layer 2, imported on first use

        try:
            with type_check.light_mode:
                self.check_type_forward(type_check.get_light_types(in_data))
            return
        except type_check.InvalidType:
            pass  # run the full check again to build the message
        in_types = type_check.get_types(in_data, "in_types", False)
        with type_check.get_function_check_context(self):
            self.check_type_forward(in_types)

    # NOTE [checks assigned to instances]
    # apply() type-checks only functions whose class defines check_type_forward: most do not,
    # and the class attribute settles it at no cost. Chainer calls self.check_type_forward on
    # every apply instead, so a check assigned to an instance runs there (tests assign mocks to
    # count the calls); the base class's attribute is a data descriptor that files such an
    # assignment under _assigned_type_check, which apply() reads for classes without a check
    # once any instance has been given one (_checks_assigned), so that until then it costs
    # nothing.
    # A class that defines the method holds a plain function, so an assignment to one of its
    # instances lands in the instance and shadows it, as in Chainer.
    check_type_forward = _InstanceTypeCheck()
    _assigned_type_check: Any = None

    # ------------------------------------------------------------------------ memory layouts
    # compat: Chainer 7's experimental memory layouts (chainer.memory_layouts). Every array
    # here has the standard layout, so every input layout is None; apply() does not call
    # check_layout_forward, which could only pass, and nothing reads the output layouts a
    # forward may set.
    is_elementwise = False
    _output_layouts: tuple[Any, ...] | None = None  # set by a forward, through output_layouts

    def check_layout_forward(self, inputs: tuple[Variable, ...]) -> None:
        """Checks the memory layouts of the input Variables, as Chainer's default does: an
        elementwise function takes inputs of one layout, any other only standard ones.

        Raises:
            RuntimeError: If the layouts are mixed (elementwise) or not standard.
        """
        layouts = [x.layout for x in inputs]
        if self.is_elementwise:
            if any(layout != layouts[0] for layout in layouts):
                raise RuntimeError(
                    "Inputs with mixed memory layouts were given to an elementwise function.\n"
                    f"Function: {self.label}\nInput layouts: {', '.join(map(str, layouts))}")
        elif any(layout is not None for layout in layouts):
            raise RuntimeError(
                "Inputs with non-standard layouts were given to a function without explicit "
                f"`check_layout_forward` implementation.\nFunction: {self.label}\n"
                f"Input layouts: {', '.join(map(str, layouts))}")

    @property
    def input_layouts(self) -> tuple[None, ...]:
        """The memory layout of each input (None: standard), once the node is applied."""
        return self._standard_layouts(self.inputs, "input_layouts")

    @property
    def output_layouts(self) -> tuple[Any, ...]:
        """The memory layout of each output, once the node is applied: the ones forward set
        (``memory_layouts.AsLayout`` does), else None (standard) for each."""
        if self._output_layouts is not None:
            return self._output_layouts
        return self._standard_layouts(self.outputs, "output_layouts")

    @output_layouts.setter
    def output_layouts(self, layouts: tuple[Any, ...]) -> None:
        if not isinstance(layouts, tuple):
            raise TypeError(f"output_layouts must be a tuple, got {type(layouts).__name__}")
        self._output_layouts = layouts

    def _standard_layouts(self, links: tuple[Any, ...] | None, name: str) -> tuple[None, ...]:
        if links is None:
            raise AssertionError(f"{name} of {self.label} are known once it is applied")
        return (None,) * len(links)

    # ----------------------------------------------------------------------------- forward
    def forward_chainerx(self, inputs: tuple[Any, ...]) -> Any:
        """Returns ``Fallback``: ChainerX is not supported."""
        return Fallback

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _adopt_device_forwards(cls)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the output arrays; dispatches to forward_cpu/forward_gpu by array type."""
        if inputs and backend.is_cupy_array(inputs[0]):
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

    def retain_inputs(self, indexes: Any) -> None:
        """Asks to keep the input arrays at these indexes for backward (call it in forward)."""
        self._input_indexes_to_retain = indexes

    def retain_outputs(self, indexes: Any) -> None:
        """Asks to keep the output arrays at these indexes for backward (call it in forward)."""
        self._output_indexes_to_retain = indexes

    # ----------------------------------------------------------------------------- backward
    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Variable | None, ...]) -> tuple[Variable | None, ...]:
        """Computes the input gradients (Variables) from the output gradients.

        Args:
            target_input_indexes: Sorted indexes of the inputs that need a gradient.
            grad_outputs: A gradient Variable per output, None where none flows back.

        Returns:
            One gradient per target index, or one per input (the others are dropped). The
            default returns Nones: the function is not differentiable.
        """
        return (None,) * len(target_input_indexes)

    def backward_accumulate(self, target_input_indexes: tuple[int, ...],
                            grad_outputs: tuple[Variable | None, ...],
                            grad_inputs: tuple[Variable | None, ...]) -> tuple[Any, ...]:
        """Computes the input gradients and adds them to ``grad_inputs``.

        Override it to fuse the accumulation into the backward computation. The default calls
        :meth:`backward` and adds.

        Returns:
            One accumulated gradient per target index.
        """
        grads = self.backward(target_input_indexes, grad_outputs)
        if len(grads) != len(target_input_indexes):
            grads = tuple([grads[i] for i in target_input_indexes])
        return tuple([
            gx if before is None else before if gx is None else gx + before
            for gx, before in zip(grads, grad_inputs)])

    def get_retained_inputs(self) -> tuple[Variable, ...]:
        """Returns Variables for the inputs retained in forward (``()`` when none was)."""
        return self._get_retained_inputs_reading(None)

    def _get_retained_inputs_reading(self, read: Any) -> tuple[Variable, ...]:
        """``get_retained_inputs``, with the saved-array check only for the inputs at indexes
        in ``read`` (all when None).

        For a backward that uses the other retained inputs only for their shape, dtype or
        device: a write into them after forward cannot change its gradients, and Chainer,
        which checks nothing, computes the right ones, so it is not reported.
        """
        if self._input_indexes_to_retain is None or self.inputs is None:
            return ()
        inputs = self.inputs
        retained: list[Any] = []
        for index in self._input_indexes_to_retain:
            node = inputs[index]
            if node._data is None:
                retained.append(None)
            elif read is not None and index not in read:
                retained.append(node.get_variable())
            else:
                # The checker raises VersionMismatch, or hands out the preserved value.
                variable = _saved_arrays.on_read(self, node)
                retained.append(node.get_variable() if variable is None else variable)
        return tuple(retained)

    def get_retained_outputs(self) -> tuple[Variable, ...]:
        """Returns Variables for the outputs retained in forward (``()`` when none was).

        An output whose Variable and node were collected is resurrected as a fresh Variable
        whose creator is this node.
        """
        if self._output_indexes_to_retain is None or self.outputs is None:
            return ()
        if self._retained_output_data is None:
            raise ValueError(self._get_error_message(
                "retain_outputs is not called in forward."))
        outputs = self.outputs
        new_outputs = list(outputs)
        changed = False
        retained: list[Any] = []
        for index, data in zip(self._output_indexes_to_retain, self._retained_output_data):
            node = outputs[index]()
            if node is None and data is None:  # an absent output: NOTE [absent outputs]
                retained.append(None)
                continue
            if node is None:
                variable = _new_variable(data, True)
                node = variable._node
                node.set_creator_node(self)
                node._data = data
                new_outputs[index] = _weakref(node)
                changed = True
            else:
                variable = node.get_variable()
            # Also for a resurrected output: its node holds the retained array.
            preserved = _saved_arrays.on_read(self, node)
            if preserved is not None:
                variable = preserved
            retained.append(None if variable._array is None else variable)
        if changed:
            self.outputs = tuple(new_outputs)
        return tuple(retained)

    def unchain(self) -> None:
        """Removes this node from the graph: its outputs become roots."""
        for ref in self.outputs or ():
            node = ref()
            if node is not None:
                node.unchain()
        self.inputs = None
        self.outputs = None
        if self._saved_records is not None:  # the arrays they name go with the inputs
            self._saved_records = None
            self._saved_lone_array = None

    # ----------------------------------------------------------------------------- hooks
    def add_hook(self, hook: FunctionHook, name: str | None = None) -> HookHandle:
        """Registers a hook for this function only.

        Returns:
            A handle whose ``remove()`` unregisters the hook (safe to call twice).

        Raises:
            TypeError: If ``hook`` is not a FunctionHook.
            KeyError: If a hook with that name is already registered to this function.
        """
        if not isinstance(hook, FunctionHook):
            raise TypeError("Hook must be of type FunctionHook")
        if name is None:
            name = hook.name
        hooks = self.local_function_hooks
        _register_hook(hooks, name, hook, self,
                       "Hook {name} already exists: a hook name must be registered at most once "
                       "per function; pass another name (add_hook(hook, name='...'))")
        return HookHandle(hooks, name, hook, self)

    def delete_hook(self, name: str) -> None:
        """Unregisters the local hook of that name.

        Raises:
            KeyError: If no hook of that name is registered to this function.
        """
        hooks = self.local_function_hooks
        if name not in hooks:
            raise KeyError(f"Hook {name} does not exist")
        hook = hooks.pop(name)
        hook.deleted(self)

    def _get_error_message(self, message: str) -> str:
        lines = [message, f"  function={self._impl_name} ({self.label})"]
        for i, node in enumerate(self.inputs or ()):
            lines.append(f"    input {i}: shape={node.shape} dtype={node.dtype}")
        for i, ref in enumerate(self.outputs or ()):
            node = ref()
            if node is None:
                lines.append(f"    output {i}: not available")
            else:
                lines.append(f"    output {i}: shape={node.shape} dtype={node.dtype}")
        return "\n".join(lines)


# NOTE [absent outputs]
# compat: as in Chainer, forward may return None for an output it does not compute. The
# output is a Variable without an array (shape and dtype None) whose gradient is always None;
# get_retained_outputs gives None for a retained one (as Chainer 7.8.1 does), and an old-style
# Function sees None in its output_data. apply() builds these off its fast path, with the two
# helpers below.
def _absent_output(creator: FunctionNode | None, rank: int, requires_grad: bool) -> Variable:
    out = _new_variable(_PLACEHOLDER, requires_grad)
    out._array = None
    node = out._node
    node.dtype = node.shape = None
    node._array_type = type(None)
    node._creator_node = creator
    node.rank = rank
    return out


_PLACEHOLDER = numpy.empty(0)


def _linked(output_link: Any, node: VariableNode) -> Any:
    """``output_link`` with a weak reference to ``node`` added, as apply() links its outputs
    (NOTE [compact links])."""
    if output_link is None:
        return _weakref(node)
    if type(output_link) is _weakref:
        return (output_link, _weakref(node))
    return output_link + (_weakref(node),)


_base_check_type_forward = FunctionNode.check_type_forward
_base_backward_accumulate = FunctionNode.backward_accumulate


# NOTE [forward by device]
# Chainer's FunctionNode.forward hands NumPy inputs to forward_cpu and CuPy inputs to
# forward_gpu, and the Chainer function classes named below compute there; ours compute in one
# forward that serves both (the n-step RNNs' cuDNN-only classes have no counterpart here). Code
# written against Chainer's arrangement subclasses such a class and overrides forward_cpu
# (weight normalization does, calling super().forward_cpu with the normalized weight), or calls
# forward_cpu directly. So each of these classes of ours also answers forward_cpu and
# forward_gpu with its forward, and a subclass that overrides either of them but not forward
# gets the dispatching forward back, so that its override runs. Classes that define forward in
# Chainer keep it: an override of forward_cpu is not called there either.
_DEVICE_FORWARD_CLASSES = frozenset({
    "AbsoluteGrad", "Accuracy", "ArccosGrad", "ArcsinGrad", "Arctan2Grad", "ArctanGrad", "Assign",
    "AveragePooling2D", "AveragePooling2DGrad", "AveragePoolingND", "AveragePoolingNDGrad",
    "BatchInv", "BatchL2NormSquared", "BatchL2NormSquaredGrad", "Clip", "ClipGrad", "ClippedReLU",
    "ClippedReLUGrad2", "Convolution2DFunction", "Convolution2DGradW", "CosGrad",
    "Deconvolution2DFunction", "DiGamma", "DivFromConstantGrad", "DivGrad", "Dropout", "ELU",
    "ELUGrad", "Erf", "Erfc", "ErfcInv", "Erfcx", "ErfInv", "Exp", "Expm1", "Gaussian",
    "HardSigmoid", "HardSigmoidGrad", "Hinge", "Inv", "LeakyReLU", "_LeakyReLUGrad", "LGamma",
    "LinearInterpolate", "LinearInterpolateGrad", "LocalResponseNormalization",
    "LocalResponseNormalizationGrad", "Log", "Log1p", "LogNdtr", "Maximum", "MaximumGrad",
    "MaxPoolingND", "MaxPoolingNDGrad", "MaxPoolingNDWithIndexes", "MeanAbsoluteError",
    "MeanSquaredError", "MinimumGrad", "Ndtr", "Ndtri", "NegativeSamplingFunction",
    "NegativeSamplingFunctionGrad", "PolyGamma", "PowConstVarGrad", "PowVarConstGrad",
    "PowVarVarGrad", "PReLUFunction", "PReLUFunctionGrad", "ReLU", "ReLUGrad2",
    "ROIAverageAlign2D", "ROIAveragePooling2D", "ROIMaxAlign2D", "ROIMaxPooling2D", "ROIPooling2D",
    "ROIPooling2DGrad", "RReLU", "_RReLUGrad", "Shift", "Sigmoid", "SigmoidGrad", "SinGrad",
    "SoftmaxCrossEntropy", "_SoftmaxCrossEntropyGrad_NoDoubleBackprop", "Softplus", "SoftplusGrad",
    "SpatialTransformerGrid", "SpatialTransformerSampler", "Swish", "SwishGrad", "Tanh",
    "TanhGrad", "Unpooling2D", "Upsampling2D", "Upsampling2DGrad", "_XHat", "Zeta",
})
# The forward functions of those classes (one may serve several through a shared base).
_device_forwards: set[Any] = set()


def _adopt_device_forwards(cls: type) -> None:
    """NOTE [forward by device] for a new FunctionNode class."""
    own = vars(cls)
    forward = cls.forward  # type: ignore[attr-defined]
    if forward is FunctionNode.forward:
        return
    if cls.__name__ in _DEVICE_FORWARD_CLASSES and cls.__module__.startswith("chainer_compat."):
        _device_forwards.add(forward)
        for name in ("forward_cpu", "forward_gpu"):
            if getattr(cls, name) is getattr(FunctionNode, name):
                setattr(cls, name, _forward_on_device(forward, name))
    elif ("forward" not in own and forward in _device_forwards
          and ("forward_cpu" in own or "forward_gpu" in own)):
        cls.forward = FunctionNode.forward  # type: ignore[attr-defined]


def _forward_on_device(forward: Any, name: str) -> Any:
    def forward_on_device(self: FunctionNode, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return forward(self, inputs)
    forward_on_device.__name__ = forward_on_device.__qualname__ = name
    forward_on_device.__doc__ = "Computes the outputs with ``forward`` (NOTE [forward by device])."
    return forward_on_device


class _NoSavedArrayChecks:
    """Stand-in until the saved-array checker binds itself (see chainer_compat.autograd)."""

    @staticmethod
    def on_retain(func: Any, nodes: Any) -> None:
        pass

    @staticmethod
    def on_read(func: Any, node: Any) -> None:
        """Returns None: hand out the node's own Variable."""
        return None

    @staticmethod
    def read_array(func: Any, array: Any, what: str) -> Any:
        """Returns the array itself."""
        return array


_saved_arrays: Any = _NoSavedArrayChecks


def _record_kept(func: FunctionNode, nodes: Sequence[VariableNode], first: bool) -> None:
    """Hands the arrays ``func`` keeps for backward to the saved-array checker.

    One small NumPy array, the commonest case, is recorded here as the checker's lone record
    (NOTE [saved records] in autograd/_saved_arrays.py) while the checker says nothing else
    needs checking; the checker records everything else.

    Args:
        func: The node that keeps the arrays.
        nodes: The VariableNodes holding them.
        first: Whether these are the first arrays this application of ``func`` keeps. The
            checker adds to the records it finds, so the records of an earlier application
            of the same node are dropped first: compared against them, an array changed
            before this application's forward would be reported as changed after it.
    """
    checker = _saved_arrays
    if first and func._saved_records is not None:
        func._saved_records = None
        func._saved_lone_array = None
    if len(nodes) == 1 and checker.lone_records and func._saved_records is None:
        array = nodes[0]._data
        if type(array) is _ndarray and array.nbytes <= checker.small_nbytes:
            func._saved_lone_array = array
            func._saved_records = array.tobytes()
            return
    checker.on_retain(func, nodes)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, grad_inputs: Any = None,
         set_grad: bool = False, retain_grad: bool = False,
         enable_double_backprop: bool = False, loss_scale: float | None = None) -> list[Any]:
    """Computes the gradients of ``outputs`` with respect to ``inputs``; see ``chainer.grad``.

    Only the part of the graph between the inputs and the outputs is visited.

    Args:
        outputs: Tuple or list of output Variables.
        inputs: Tuple or list of Variables to differentiate with respect to.
        grad_outputs: Initial output gradients (None: ones).
        grad_inputs: Gradients to add the results to (not in place).
        set_grad: Also store each result in the input's ``grad_var``.
        retain_grad: Store the gradients of every intermediate Variable.
        enable_double_backprop: Record the backward computation.
        loss_scale: Multiply the starting gradients by this factor.

    Returns:
        A list with a gradient Variable (or None) per input.
    """
    from chainer_compat import _engine  # layer 6: the engine sits above the functions

    return _engine.grad(outputs, inputs, grad_outputs, grad_inputs, set_grad, retain_grad,
                        enable_double_backprop, loss_scale)
