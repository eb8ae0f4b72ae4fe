"""``Variable``, its graph node ``VariableNode``, and ``Parameter``.

Layer 3: imports from configuration, backend and function_hook at module level; the operators and
``backward`` reach higher layers through the bindings described in NOTE [late binding].
"""

from __future__ import annotations

import copy
import threading
import warnings
import weakref
from typing import Any

import numpy

from chainer_compat import backend

# NOTE [late binding]
# Variable's operators, reshape/transpose and backward() are implemented by higher layers
# (functions/, _engine.py). Importing inside each method would cost an import-statement lookup
# on the hottest paths (a backward written with Variable operators calls them once per node), so
# the higher layers bind themselves here when they are imported: ``_ops`` is the basic_math
# module and ``_engine`` the engine module. The package ``__init__`` imports both, and importing
# any submodule runs the package ``__init__`` first, so the bindings are always in place.
# basic_math also puts its operator functions straight onto the class (``Variable.__mul__ is
# basic_math.mul``), saving the frame of the methods below; those stay as the typed, documented
# surface and give the same results.
_ops: Any = None
_engine: Any = None

_ndarray = numpy.ndarray
_new = object.__new__
_weakref = weakref.ref
_new_node = weakref.ref.__new__  # NOTE [node as weak reference]


class _UnsupportedOperation(TypeError, NotImplementedError):
    """Raised by comparisons and ``bool()`` on a Variable.

    compat: Chainer 7.8.1 raises TypeError here and earlier versions NotImplementedError;
    deriving from both keeps ``except`` clauses written for either working.
    """


def _unsupported_operator(operator: str) -> Any:
    """A Variable comparison method that raises, in Chainer's wording (which names the fix)."""
    def unsupported(self: Any, other: Any) -> Any:
        raise _UnsupportedOperation(
            f"Variables do not support {operator} operator. You could use `array` attribute "
            "instead.")
    return unsupported


def _array_types_text() -> str:
    return "numpy.ndarray or cupy.ndarray"


def _is_array(value: Any) -> bool:
    return type(value) is _ndarray or isinstance(value, _ndarray) or backend.is_cupy_array(value)


def _check_grad_type(func: Any, x: Any, is_node: bool, gx: Any) -> None:
    """Raises if ``gx`` cannot be the gradient of ``x`` (a Variable, or a VariableNode).

    ``func`` is the function node whose backward produced ``gx``, or None for a user assignment.
    """
    if gx is None:
        return
    if is_node:
        dtype, shape = x.dtype, x.shape
        if dtype is None:
            return
        array_type = x._array_type
    else:
        data = x._array
        if data is None:
            return
        dtype, shape, array_type = data.dtype, data.shape, type(data)
    kind: type[Exception]
    if type(gx) is not array_type and not (
            _is_array(gx) and backend.is_cupy_array(gx) == _is_cupy_type(array_type)):
        kind, message = TypeError, (
            f"Type of grad is invalid: a gradient must be an array of the data's backend, "
            f"got {type(gx).__name__} for data of type {array_type.__name__}")
    elif gx.dtype != dtype:
        kind, message = TypeError, (
            f"Dtype of data and grad mismatch\ngrad: {gx.dtype} != data: {dtype}")
    elif gx.shape != shape:
        kind, message = ValueError, (
            f"Shape of data and grad mismatch\ngrad: {gx.shape} != data: {shape}")
    else:
        return
    if func is not None:
        message = (f"Function `{func._impl_name}` ({func.label}) returned a bad gradient: "
                   f"fix its backward.\n" + message)
        if func.stack:
            import traceback  # rare path: only when an error is being reported
            message += "\nThe function was created at:\n" + "".join(
                traceback.format_list(func.stack))
    raise kind(message)


def _is_cupy_type(array_type: type) -> bool:
    cupy_ndarray = backend._cupy_ndarray()
    return cupy_ndarray is not None and issubclass(array_type, cupy_ndarray)


def _host_copy(array: Any) -> Any:
    return array.get() if backend.is_cupy_array(array) else array


def variable_repr(var: Variable) -> str:
    """Returns Chainer's ``repr`` of a Variable: ``variable name([...])``."""
    array = _host_copy(var._array)
    prefix = "variable" if not var.name else "variable " + var.name
    if array is None:
        body = "None"
    elif array.size > 0 or array.shape == (0,):
        body = numpy.array2string(array, separator=", ", prefix=prefix + "(")
    else:
        body = f"[], shape={array.shape!r}"
    return f"{prefix}({body})"


def variable_str(var: Variable) -> str:
    """Returns Chainer's ``str`` of a Variable: ``variable name([...])`` without commas."""
    array = _host_copy(var._array)
    prefix = "variable" if not var.name else "variable " + var.name
    body = "None" if array is None else numpy.array2string(
        array, separator=" ", prefix=prefix + "(")
    return f"{prefix}({body})"


def _refuse_node_kwargs(kwargs: dict[str, Any]) -> None:
    # compat: VariableNode took grad= in Chainer v1; Chainer refuses it by name, with ValueError.
    if "grad" in kwargs:
        raise ValueError('unexpected keyword argument "grad": pass the gradient to Variable '
                         "instead")
    # Chainer ignores any other name; an ignored argument is a mistake left unreported.
    names = ", ".join(repr(name) for name in sorted(kwargs))
    raise TypeError(f"VariableNode() got unexpected keyword argument(s) {names}: it takes only "
                    "the variable and its name")


class VariableNode(weakref.ref):
    """The node of a Variable in the computational graph.

    It holds no array unless :meth:`retain_data` was called (a function keeps the array for its
    backward), and only a weak reference to its Variable, so the graph never keeps the user's
    Variables (or their gradients) alive.

    Args:
        variable: The Variable this node belongs to.
        name: Name of the node.
    """

    # NOTE [node as weak reference]
    # The node *is* the weak reference to its Variable (calling it returns the Variable, or None
    # once the Variable is gone) rather than holding a separate weakref object. Every graph
    # object is walked by CPython's cyclic garbage collector each time a full collection runs,
    # and a large graph triggers those repeatedly while it grows; one object less per node is
    # measurably less time (benchmarks/README.md, "profile reading"). Nodes still compare and
    # hash by identity, not by their Variable as weakref.ref would. A weak reference cannot be
    # re-pointed, so a Variable recreated by get_variable() after the first one was collected is
    # referenced from ``_revived``.
    # compat: "__dict__" lets code set attributes of its own on a node, as on Chainer's
    # (tensorboard-chainer's name_scope sets node.name_scope); the dict is made on first use.
    __slots__ = ("_revived", "_data", "name", "_creator_node", "rank", "_requires_grad",
                 "dtype", "shape", "_array_type", "__weakref__", "__dict__")
    _revived: Any
    _data: Any
    name: str | None
    _creator_node: Any
    rank: int
    _requires_grad: bool
    dtype: Any
    shape: Any
    _array_type: Any

    # Identity semantics and a plain repr, as for any graph object: weakref.ref's own equality
    # and hash would compare the Variables, and its repr would describe the reference.
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __repr__ = object.__repr__

    def __new__(cls, variable: Variable, name: str | None = None,
                **kwargs: Any) -> VariableNode:
        return _weakref.__new__(cls, variable)

    def __copy__(self) -> VariableNode:
        return self._copy(None)

    def __deepcopy__(self, memo: dict[int, Any]) -> VariableNode:
        return self._copy(memo)

    def _copy(self, memo: dict[int, Any] | None) -> VariableNode:
        """A node like this one, referring to the same Variable (a weak reference is atomic to
        ``copy``, as it was when the node held one); with ``memo``, its other fields deep-copied.
        """
        variable = self()
        # A weak reference cannot be made to nothing: when the Variable is gone, refer to a
        # stand-in that goes at once, so the copy's reference is dead as well.
        node = _new_node(type(self), _new(Variable) if variable is None else variable)
        if memo is not None:
            memo[id(self)] = node
        for name in _NODE_FIELDS:
            value = getattr(self, name)
            setattr(node, name, value if memo is None else copy.deepcopy(value, memo))
        own = self.__dict__  # attributes set by code outside the package, if any
        if own:
            node.__dict__.update(own if memo is None else copy.deepcopy(own, memo))
        return node

    def __init__(self, variable: Variable, name: str | None, **kwargs: Any) -> None:
        if kwargs:
            _refuse_node_kwargs(kwargs)
        self._revived = None
        self._data = None
        self.name = name
        self._creator_node = None
        self.rank = 0
        own_node = getattr(variable, "_node", None)
        self._requires_grad = True if own_node is None else own_node._requires_grad
        self._set_data_type(variable._array)

    @property
    def creator(self) -> Any:
        """The function that created this node: an old-style Function when it was one."""
        node = self._creator_node
        return None if node is None else getattr(node, "_old_style_function", node)

    @creator.setter
    def creator(self, func: Any) -> None:
        self.set_creator(func)

    @property
    def creator_node(self) -> Any:
        """The FunctionNode that created this node, or None for a root."""
        return self._creator_node

    @creator_node.setter
    def creator_node(self, func: Any) -> None:
        self.set_creator_node(func)

    @property
    def data(self) -> Any:
        """The retained array, or None when no function asked to keep it."""
        return self._data

    @data.setter
    def data(self, array: Any) -> None:
        self._data = array
        self._set_data_type(array)

    @property
    def grad(self) -> Any:
        """Gradient array of the Variable, or None when the Variable is gone."""
        variable = self.get_variable_or_none()
        return None if variable is None else variable.grad

    @property
    def grad_var(self) -> Variable | None:
        """Gradient Variable of the Variable, or None when the Variable is gone."""
        variable = self.get_variable_or_none()
        return None if variable is None else variable._grad_var

    @property
    def label(self) -> str:
        """Short text describing the node: its shape and dtype."""
        if self.shape == ():
            return str(self.dtype)
        return "({}), {}".format(", ".join(map(str, self.shape or ())), self.dtype)

    @property
    def requires_grad(self) -> bool:
        """Whether backprop computes a gradient for this node."""
        return self._requires_grad

    def get_variable(self) -> Variable:
        """Returns the Variable of this node, recreating one around the node if it is gone."""
        variable = self.get_variable_or_none()
        if variable is not None:
            return variable
        variable = _new(Variable)
        variable._array = self._data
        variable._grad_var = None
        variable._loss_scale = None
        variable._node = self
        self._revived = _weakref(variable)
        return variable

    @property
    def _variable(self) -> Any:
        # compat: Chainer's node keeps its Variable as the weak reference ``_variable``, which
        # code outside Chainer calls (tensorboard-chainer: ``node._variable()``). Here the node
        # is that reference (NOTE [node as weak reference]), or _revived once it was revived.
        revived = self._revived
        return self if revived is None or self() is not None else revived

    def get_variable_or_none(self) -> Variable | None:
        """Returns the Variable of this node, or None if it was collected."""
        variable = self()
        if variable is None:
            revived = self._revived
            if revived is not None:
                return revived()
        return variable

    def set_creator(self, creator: Any) -> None:
        """Sets the creator; an old-style Function is replaced by its node."""
        node = getattr(creator, "_as_function_node", None)
        self.set_creator_node(creator if node is None else node())

    def set_creator_node(self, creator_node: Any) -> None:
        """Sets the creator FunctionNode and the rank that follows from it."""
        self._creator_node = creator_node
        if creator_node is not None:
            self.rank = creator_node.rank + 1

    def unchain(self) -> None:
        """Forgets the creator, making this node a root."""
        self.set_creator_node(None)

    def retain_data(self) -> None:
        """Keeps the Variable's current array in the node for a later backward.

        Raises:
            RuntimeError: If the Variable was already collected.
        """
        variable = self.get_variable_or_none()
        if variable is None:
            raise RuntimeError(
                "cannot retain variable data: the variable has been already released")
        self.data = variable._array

    def _set_data_type(self, array: Any) -> None:
        if array is None:
            self.dtype = None
            self.shape = None
            self._array_type = None
        else:
            self.dtype = array.dtype
            self.shape = array.shape
            self._array_type = type(array)

    def _check_old_style_gradient(self) -> None:
        # compat: Chainer rejects graphs built by old-style backward; ours never builds them.
        pass


_NODE_FIELDS = tuple(name for name in VariableNode.__slots__
                     if name not in ("__weakref__", "__dict__"))


# NOTE [nodes made on demand]
# A gradient computed without recording a graph (the direct paths of NOTE [operators without a
# node] and NOTE [gradients without a node], the engine's inline sums, an old-style Function's
# gradients) is a Variable that no function created and that only its consumer reads: the next
# backward step takes its array, and at most asks whether it requires a gradient. Making its
# VariableNode (an object with nine fields, which the cyclic GC then tracks) was about a quarter
# of a microsecond per gradient, a tenth of a chain node's backward. Such a Variable starts with
# one of two shared stand-ins, _PendingNode(True) or _PendingNode(False), which answer the reads
# of the hot paths (``_requires_grad``; ``_creator_node`` None, ``rank`` 0, ``_data`` None,
# ``name`` None, as a fresh node would) and nothing else. Every other use goes through
# ``Variable.node`` (or ``_own_node``), which makes the real node from the current array the first
# time and stores it, so the user never sees a stand-in. Code that would store into the node, use
# it as a graph or dict key, or read its dtype must call ``node``: the stand-in has no other
# fields, so forgetting fails loudly (AttributeError) rather than sharing state.
class _PendingNode:
    """Stands in for the VariableNode of an unlinked Variable: NOTE [nodes made on demand]."""

    __slots__ = ("_requires_grad",)
    _requires_grad: bool
    _creator_node = None
    rank = 0
    _data = None
    name = None

    def __init__(self, requires_grad: bool) -> None:
        object.__setattr__(self, "_requires_grad", requires_grad)

    def __setattr__(self, name: str, value: Any) -> None:
        # Shared by every pending Variable: a store would reach all of them.
        raise AttributeError(
            f"a pending VariableNode is shared and read-only, got a store to {name}: make the "
            "Variable's own node first (variable.node)")

    def __repr__(self) -> str:
        return f"<pending VariableNode, requires_grad={self._requires_grad}>"


_PENDING = {True: _PendingNode(True), False: _PendingNode(False)}
_making_nodes = threading.Lock()


def _new_unlinked_variable(array: Any, requires_grad: bool) -> Variable:
    """Builds a Variable whose node is made on first use (NOTE [nodes made on demand]).

    For gradients computed without a graph; a function's outputs use _new_variable.
    """
    variable = _new(Variable)
    variable._array = array
    variable._grad_var = None
    variable._loss_scale = None
    variable._node = _PENDING[requires_grad]  # type: ignore[assignment]
    return variable


def _new_variable(array: Any, requires_grad: bool) -> Variable:
    """Builds a Variable without argument parsing (the hot path of FunctionNode.apply)."""
    variable = _new(Variable)
    variable._array = array
    variable._grad_var = None
    variable._loss_scale = None
    node = _new_node(VariableNode, variable)
    node._revived = None
    node._data = None
    node.name = None
    node._creator_node = None
    node.rank = 0
    node._requires_grad = requires_grad
    node.dtype = array.dtype
    node.shape = array.shape
    node._array_type = type(array)
    variable._node = node
    return variable


class _SharedArray:
    """The Variables whose array slot is one (NOTE [shared arrays]), held weakly by id.

    Callers hold ``_sharing``. Members are compared by identity (a Variable's ``==`` raises);
    entries of collected Variables are dropped whenever the table has doubled since the last
    sweep, so copying stays linear.
    """

    __slots__ = ("members", "swept_at")

    def __init__(self, first: Variable) -> None:
        self.members = {id(first): _weakref(first)}
        self.swept_at = 1

    def join(self, variable: Variable) -> None:
        members = self.members
        members[id(variable)] = _weakref(variable)  # replaces a collected one with the same id
        if len(members) > 2 * self.swept_at:
            self.members = members = {key: ref for key, ref in members.items()
                                      if ref() is not None}
            self.swept_at = len(members)

    def leave(self, variable: Variable) -> None:
        ref = self.members.get(id(variable))
        if ref is not None and ref() is variable:
            del self.members[id(variable)]

    def others(self, variable: Variable) -> list[Variable]:
        found = (ref() for ref in self.members.values())
        return [member for member in found if member is not None and member is not variable]


# Guards every _SharedArray: copies, moves and array assignments may run in several threads.
_sharing = threading.RLock()


class Variable:
    """__init__(data=None, *, name=None, grad=None, requires_grad=True, layout=None)

    An array that records the computations applied to it.

    A Variable holds an array (NumPy or CuPy), an optional gradient, and a :class:`VariableNode`
    that links it into the computational graph. Functions applied to Variables return Variables
    whose nodes remember their creator, so :meth:`backward` can walk the graph back.

    Args:
        data: The array, or None for an uninitialized Variable.
        name: Name shown by ``repr`` and graph dumps.
        grad: Initial gradient array.
        requires_grad: Whether backprop computes a gradient for this Variable.
        layout: Chainer's memory layout of the array; only None (the standard layout) is
            supported, and ``layout`` reads None.

    Raises:
        TypeError: If ``data`` is not an array, an unknown keyword is given, or
            ``requires_grad=True`` is passed explicitly for an array that is not floating-point
            (Compat: Chainer accepts it; the default ``requires_grad`` still does).
        ValueError: If the removed ``volatile`` keyword is given, or a ``layout`` other than
            None.
    """

    __slots__ = ("_array", "_grad_var", "_node", "_loss_scale", "__dict__", "__weakref__")
    _array: Any
    _grad_var: Variable | None
    _node: VariableNode
    _loss_scale: float | None

    # compat: NumPy defers binary operators with an ndarray on the left to us.
    __array_priority__ = 200
    __hash__ = None  # type: ignore[assignment]
    # Set (in the instance dict) when unchain() cut this Variable from its creator, so that a
    # later backward() from it can say why nothing flows instead of silently doing nothing.
    _graph_cut = False
    # compat: Chainer's memory layout of the array; only the standard layout (None) exists here.
    layout = None

    def __init__(self, data: Any = None, **kwargs: Any) -> None:
        if "volatile" in kwargs:
            raise ValueError(
                "volatile argument is not supported anymore. Use chainer.using_config")
        name = kwargs.pop("name", None)
        grad = kwargs.pop("grad", None)
        asked_for_grad = "requires_grad" in kwargs
        requires_grad = kwargs.pop("requires_grad", True)
        _check_standard_layout(kwargs.pop("layout", None))
        if kwargs:
            # compat: Chainer's parse_kwargs wording, which names the method and sorts.
            raise TypeError(
                "__init__() got unexpected keyword argument(s) "
                + ", ".join(repr(k) for k in sorted(kwargs)))
        if data is not None and not _is_array(data):
            raise TypeError(
                f"Variable data must be a {_array_types_text()} (or None), got "
                f"{type(data).__name__}: wrap Python numbers and lists with numpy.asarray()")
        # Chainer lets integer Variables require grad, and the default still does (labels are
        # wrapped that way); an explicit requires_grad=True is refused: no gradient can flow.
        if asked_for_grad and requires_grad and data is not None and data.dtype.kind not in "fc":
            raise TypeError(
                f"requires_grad=True needs a floating-point array, got dtype {data.dtype}: cast "
                "the data first (a.astype(numpy.float32)), or pass requires_grad=False for "
                "integer data such as labels")
        self._array = data
        self._grad_var = None
        self._loss_scale = None
        self._node = _node_for(self, name, bool(requires_grad))
        if grad is not None:
            self.grad = grad

    # ----------------------------------------------------------------------------- copying
    # NOTE [shared arrays]
    # compat: a shallow copy shares the array *slot* with its original, as in Chainer (whose
    # copies share a one-element list): assigning ``array``/``data``, or initializing a lazy
    # Parameter, on one is seen by the other. That is what makes ``model.copy()`` (share mode)
    # before the first forward train and evaluate the same weights. Moving one of them to
    # another device breaks the sharing, as in Chainer. The hot paths read and write
    # ``_array`` directly and never pay for this: only the ``array`` setter, ``to_device`` and
    # ``Parameter.initialize`` look for a group (``_shared``, in the instance dict), which
    # holds its members weakly.
    _shared: _SharedArray | None = None

    def __copy__(self) -> Variable:
        result = _new(type(self))
        result._array = self._array
        result._grad_var = self._grad_var
        result._loss_scale = self._loss_scale
        result.__dict__.update(self.__dict__)
        result.__dict__.pop("_graph_cut", None)  # the copy never had a graph to cut
        result._node = VariableNode(result, self.name)
        result._node._requires_grad = self._node._requires_grad
        with _sharing:
            group = self._shared
            if group is None:
                group = self._shared = _SharedArray(self)
            result._array = self._array  # read again: an assignment may have run meanwhile
            group.join(result)
            result._shared = group
        return result

    def _leave_shared_array(self) -> None:
        with _sharing:
            group = self._shared
            if group is not None:
                group.leave(self)
                del self._shared

    def __reduce__(self) -> tuple[Any, ...]:
        # compat: Chainer 7.8.1's arguments, in its order (NOTE [pickles]).
        return _create_variable, (self._array, self.name, self.grad, self.requires_grad,
                                  self.device)

    # ----------------------------------------------------------------------------- printing
    def __repr__(self) -> str:
        return variable_repr(self)

    def __str__(self) -> str:
        return variable_str(self)

    def summary(self) -> str:
        """Returns ``<variable NAME>``, or ``<variable at 0x...>`` for an unnamed one."""
        if self.name:
            return f"<variable {self.name}>"
        return f"<variable at 0x{id(self):x}>"

    def debug_print(self) -> str:
        """Returns a summary of the array's device, shape, dtype and statistics."""
        array = self._array
        xp = backend.get_array_module(array)
        grad = self.grad

        def stats(a: Any) -> str:
            return f"mean={float(xp.mean(a)):.8f}, std={float(xp.std(a)):.8f}"

        if grad is None:
            grad_text: Any = None
        elif bool(xp.all(grad == 0)):
            grad_text = 0
        else:
            grad_text = stats(grad)
        # compat: Chainer prints the array's own device attribute: a NumPy 1 array has none, so
        # "CPU"; a CuPy array's reads "<CUDA Device 0>"; nothing for an uninitialized Variable.
        if array is None:
            device: Any = None
        else:
            device = "CPU" if isinstance(array, numpy.ndarray) else array.device
        lines = [
            self.summary(),
            f"- device: {device}",
            f"- backend: {None if array is None else type(array)}",
            f"- shape: {None if array is None else array.shape}",
            f"- dtype: {None if array is None else array.dtype}",
            f"- statistics: {None if array is None else stats(array)}",
            f"- grad: {grad_text}",
        ]
        return "\n".join(lines)

    # ----------------------------------------------------------------------------- array
    @property
    def array(self) -> Any:
        """The data array (NumPy or CuPy), or None when uninitialized."""
        return self._array

    @array.setter
    def array(self, data: Any) -> None:
        if self._shared is None:
            self._set_own_array(data)
            return
        with _sharing:  # NOTE [shared arrays]
            group = self._shared
            if group is not None:
                for other in group.others(self):
                    other._set_own_array(data)
            self._set_own_array(data)

    def _set_own_array(self, data: Any) -> None:
        self._array = data
        node = self._node
        if type(node) is _PendingNode:
            return  # the node, when made, takes its dtype and shape from the new array
        if node._data is not None:
            # compat: a node that keeps its array for backward keeps the new one, as Chainer's
            # does (an old-style Function's backward then sees it, like get_retained_inputs).
            node._data = data
        node._set_data_type(data)

    data = array

    @property
    def raw_array(self) -> Any:
        """The data array (compat: ChainerX's unwrapped array; the same here)."""
        return self._array

    @property
    def name(self) -> str | None:
        """Name of the Variable (stored on its node)."""
        return self._node.name

    @name.setter
    def name(self, name: str | None) -> None:
        self._own_node().name = name

    @property
    def label(self) -> str:
        """Short text describing the Variable: its shape and dtype."""
        return self._own_node().label

    @property
    def shape(self) -> tuple[int, ...]:
        return self._array.shape

    @property
    def ndim(self) -> int:
        return self._array.ndim

    @property
    def size(self) -> int:
        return self._array.size

    @property
    def dtype(self) -> numpy.dtype:
        return self._array.dtype

    def __len__(self) -> int:
        return len(self._array)

    def item(self) -> Any:
        """Returns the single element of the array as a Python scalar."""
        return self._array.item()

    @property
    def xp(self) -> Any:
        """The array module of the data: numpy or cupy."""
        return backend.get_array_module(self._array)

    @property
    def device(self) -> Any:
        """The device of the data array."""
        return backend.get_device_from_array(self._array)

    # ----------------------------------------------------------------------------- gradient
    def _grad_array(self) -> Any:
        """The gradient array, or None."""
        grad_var = self._grad_var
        return None if grad_var is None else grad_var._array

    def _set_grad(self, g: Any) -> None:
        if g is not None:
            _check_grad_type(None, self, False, g)
        self._grad_var = None if g is None else Variable(g)

    grad = property(_grad_array, _set_grad)

    def _set_grad_unchecked(self, g: Any) -> None:
        grad_var = self._grad_var
        if g is None:
            self._grad_var = None
        elif grad_var is None or grad_var._array is not g:
            self._grad_var = Variable(g)

    # compat: Chainer 7 keeps the gradient array in this attribute, and code that reaches past
    # the API reads it and adds into it (der-network's `param._grad += g`). Setting it skips
    # the checks of `grad`, as assigning Chainer's attribute did.
    _grad = property(_grad_array, _set_grad_unchecked)

    @property
    def grad_var(self) -> Variable | None:
        """The gradient as a Variable (it has a graph after double backprop), or None."""
        return self._grad_var

    @grad_var.setter
    def grad_var(self, g: Variable | None) -> None:
        if g is not None:
            _check_grad_type(None, self, False, g._array)
        self._grad_var = g

    def cleargrad(self) -> None:
        """Sets the gradient to None."""
        self._grad_var = None

    def zerograd(self) -> None:
        """Fills the gradient with zeros (deprecated in Chainer: use :meth:`cleargrad`)."""
        warnings.warn("Variable.zerograd is deprecated. Use Variable.cleargrad instead.",
                      DeprecationWarning, stacklevel=1)
        self._fill_grad_with_zeros()

    def _fill_grad_with_zeros(self) -> None:
        if self._array is None:
            return
        grad_var = self._grad_var
        if grad_var is None:
            self._grad_var = Variable(backend.get_array_module(self._array).zeros_like(
                self._array))
        else:
            grad_var.unchain()
            grad_var._array.fill(0)

    def addgrad(self, var: Variable) -> None:
        """Adds ``var``'s gradient to this Variable's, across devices if needed."""
        src = var.grad
        if src is None:
            return
        if self._array is None:
            if self.dtype != src.dtype:
                # Below, the sum with the initialized gradient (InvalidType) or, for a
                # Parameter whose gradient was cleared, the gradient's setter (TypeError)
                # refuses the two dtypes: refuse them as they would before initializing, so
                # that the error leaves this Parameter as it was.
                stand_in = Variable(backend.get_array_module(src).empty(var.shape, self.dtype))
                if getattr(self, "_grad_initializer", None) is None:
                    _check_grad_type(None, stand_in, False, src)
                Variable(src) + stand_in
            self.initialize(var.shape)
        src = backend.get_device_from_array(self._array).send(src)
        dst = self.grad
        if dst is None:
            self.grad = src.copy()
            return
        if dst.dtype != src.dtype or dst.shape != src.shape:
            # compat: Chainer adds the two as Variables, so the type check of ``_ + _`` rejects
            # another dtype (InvalidType) and broadcasts shapes as the operator does.
            total = (Variable(src) + Variable(dst)).array
        else:
            total = dst + src
        # Two 0-d NumPy arrays add up to a NumPy scalar, which is not a gradient.
        self.grad = numpy.asarray(total) if isinstance(total, numpy.generic) else total

    def copydata(self, var: Variable) -> None:
        """Copies ``var``'s array into this Variable's array, across devices if needed."""
        src, dst = var._array, self._array
        if src is None:
            if dst is None:
                return
            var.initialize(self.shape)
            src = var._array
        elif dst is None:
            self.initialize(src.shape)
            dst = self._array
        backend.copyto(dst, src)

    def initialize(self, shape: Any) -> None:
        """Does nothing: only a :class:`Parameter` can be uninitialized."""

    # ----------------------------------------------------------------------------- graph
    @property
    def node(self) -> VariableNode:
        """The graph node of this Variable."""
        node = self._node
        if type(node) is _PendingNode:
            return self._own_node()
        return node

    def _own_node(self) -> VariableNode:
        """This Variable's node, made now if it was pending (NOTE [nodes made on demand])."""
        node: Any = self._node
        if type(node) is _PendingNode:
            # Two threads making the node of one gradient at once would give it two nodes, and
            # the engine would file its gradient under both: check again under the lock.
            with _making_nodes:
                node = self._node
                if type(node) is _PendingNode:
                    node = _node_for(self, None, node._requires_grad)
                    self._node = node
        return node

    @property
    def rank(self) -> int:
        return self._node.rank

    @property
    def requires_grad(self) -> bool:
        """Whether backprop computes a gradient for this Variable."""
        return self._node._requires_grad

    @property
    def _requires_grad(self) -> bool:
        # compat: Chainer keeps this flag on the Variable, and code freezes a Parameter by
        # clearing it (vat_nmt's positional encoding); here it is the node's flag. Chainer's
        # node kept its own earlier copy, so a function applied to the Variable itself still
        # passed it a gradient there; here clearing it freezes the Variable everywhere.
        return self._node._requires_grad

    @_requires_grad.setter
    def _requires_grad(self, value: bool) -> None:
        node = self._node
        if type(node) is _PendingNode:
            self._node = _PENDING[bool(value)]  # type: ignore[assignment]
        else:
            node._requires_grad = bool(value)

    @property
    def creator(self) -> Any:
        """The function that created this Variable (an old-style Function if it was one)."""
        return self._own_node().creator

    @creator.setter
    def creator(self, func: Any) -> None:
        self._own_node().set_creator(func)

    @property
    def creator_node(self) -> Any:
        """The FunctionNode that created this Variable, or None."""
        return self._node._creator_node

    @creator_node.setter
    def creator_node(self, func: Any) -> None:
        self._own_node().set_creator_node(func)

    def set_creator(self, gen_func: Any) -> None:
        """Sets the creator function."""
        self._own_node().set_creator(gen_func)

    def set_creator_node(self, fnode: Any) -> None:
        """Sets the creator FunctionNode."""
        self._own_node().set_creator_node(fnode)

    def retain_data(self) -> None:
        """Lets the node keep the current array for a later backward."""
        self._own_node().data = self._array

    def unchain(self) -> None:
        """Cuts the link to the creator; this Variable becomes a root."""
        node = self._own_node()
        if node._creator_node is not None:
            self._graph_cut = True
        node.set_creator_node(None)

    def unchain_backward(self) -> None:
        """Cuts every link of the graph reachable backward from this Variable."""
        pending: list[Any] = []
        seen: set[Any] = set()
        creator = self._node._creator_node
        if creator is not None:
            pending.append(creator)
            seen.add(creator)
        self.unchain()
        while pending:
            func = pending.pop()
            for input_node in func.inputs or ():
                creator = input_node._creator_node
                if creator is not None and creator not in seen:
                    seen.add(creator)
                    pending.append(creator)
            func.unchain()

    def backward(self, retain_grad: bool = False, enable_double_backprop: bool = False,
                 loss_scale: float | None = None) -> None:
        """Runs backprop from this Variable, accumulating into the leaves' ``grad``.

        A Variable with one element and no gradient starts from a gradient of ones.

        Args:
            retain_grad: Keep the gradients of intermediate Variables, and of this one. Without
                it, this Variable's gradient (the one set, or the ones backward started from)
                is cleared once used, as in Chainer.
            enable_double_backprop: Record the backward computation so the gradients can be
                differentiated again.
            loss_scale: Multiply the starting gradient by this factor.

        Raises:
            ValueError: If the Variable has more than one element and no gradient was set.
            RuntimeError: If :meth:`unchain` or :meth:`unchain_backward` cut this Variable
                from its creator (Compat: Chainer silently does nothing then).
        """
        _engine.backward_from_variable(self, retain_grad, enable_double_backprop, loss_scale)

    # ----------------------------------------------------------------------------- devices
    def to_cpu(self) -> None:
        """Moves the array and gradient to the host."""
        self.to_device(backend.CpuDevice())

    def to_gpu(self, device: Any = None) -> None:
        """Moves the array and gradient to a GPU (the current one when ``device`` is None)."""
        from chainer_compat.backends import cuda  # optional backend, loaded on use

        if device is None:
            cuda.check_cuda_available()  # compat: RuntimeError without CuPy, as in Chainer
            cupy: Any = cuda.cupy
            device = cupy.cuda.Device().id
        self.to_device(cuda.GpuDevice.from_device_id(int(device)))

    def to_device(self, device: Any) -> None:
        """Moves the array and gradient to ``device`` (a device object or specifier)."""
        device = backend.get_device(device)
        if self._array is not None:
            moved = device.send(self._array)
            if moved is not self._array:
                self._leave_shared_array()  # compat: moving breaks the sharing, as in Chainer
            self._array = moved
            node = self._node
            if type(node) is _PendingNode:
                pass  # made later, from the moved array
            elif node._data is not None:
                node.data = self._array
            else:
                node._set_data_type(self._array)
        if self._grad_var is not None:
            self._grad_var.to_device(device)

    def to_intel64(self) -> None:
        """Raises: iDeep is not supported by chainer_compat."""
        raise RuntimeError(
            "to_intel64 must not be used: chainer_compat does not support iDeep; the CPU "
            "device ('@numpy', to_cpu()) runs the same code")

    def to_chx(self) -> None:
        """Raises: ChainerX is not supported by chainer_compat (Chainer's words)."""
        raise RuntimeError("ChainerX is not available.")

    def from_chx(self) -> None:
        """Does nothing: without ChainerX, no array is ever a ChainerX array."""

    @property
    def chx_array(self) -> Any:
        """Raises: no Variable holds a ChainerX array here (Chainer's ValueError)."""
        raise ValueError("chx_array is not available for Variable with non-ChainerX array.")

    def as_layout(self, layout: Any) -> Variable:
        """This Variable in memory layout ``layout``: itself for the standard layout (None),
        else the output of :class:`chainer_compat.memory_layouts.AsLayout`."""
        if layout is None:
            return self  # compat: Chainer returns the Variable itself when nothing changes
        from chainer_compat.memory_layouts import AsLayout  # a higher layer, loaded on use

        converted, = AsLayout(layout).apply((self,))
        return converted

    # ----------------------------------------------------------------------------- shapes
    def reshape(self, *shape: Any) -> Variable:
        """Returns a reshaped Variable (differentiable)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _ops.reshape(self, shape)

    def mean(self, axis: Any = None, *, weights: Any = None,
             keepdims: bool = False) -> Variable:
        """The (weighted) mean over ``axis``: ``F.average(self, axis, weights, keepdims)``."""
        from chainer_compat.functions.math.average import average  # a higher layer, on use

        return average(self, axis, weights, keepdims)

    def transpose(self, *axes: Any) -> Variable:
        """Returns a Variable with permuted axes (differentiable)."""
        if len(axes) == 0:
            axes_arg = None
        elif len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes_arg = axes[0]
        else:
            axes_arg = axes
        return _ops.transpose(self, axes_arg)

    @property
    def T(self) -> Variable:
        """Transposed Variable (all axes reversed)."""
        return _ops.transpose(self, None)

    # ----------------------------------------------------------------------------- operators
    def __neg__(self) -> Variable:
        return _ops.neg(self)

    def __abs__(self) -> Variable:
        return _ops.absolute(self)

    def __pos__(self) -> Variable:
        return self

    def __add__(self, other: Any) -> Variable:
        return _ops.add(self, other)

    def __radd__(self, other: Any) -> Variable:
        return _ops.add(self, other)

    def __sub__(self, other: Any) -> Variable:
        return _ops.sub(self, other)

    def __rsub__(self, other: Any) -> Variable:
        return _ops.rsub(self, other)

    def __mul__(self, other: Any) -> Variable:
        return _ops.mul(self, other)

    def __rmul__(self, other: Any) -> Variable:
        return _ops.mul(self, other)

    def __truediv__(self, other: Any) -> Variable:
        return _ops.div(self, other)

    def __rtruediv__(self, other: Any) -> Variable:
        return _ops.rdiv(self, other)

    def __pow__(self, other: Any) -> Variable:
        return _ops.pow(self, other)

    def __rpow__(self, other: Any) -> Variable:
        return _ops.rpow(self, other)

    def __matmul__(self, other: Any) -> Variable:
        return _ops.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Variable:
        return _ops.rmatmul(self, other)

    def __getitem__(self, slices: Any) -> Variable:
        return _ops.get_item(self, slices)

    __lt__ = _unsupported_operator("<")
    __le__ = _unsupported_operator("<=")
    __gt__ = _unsupported_operator(">")
    __ge__ = _unsupported_operator(">=")
    __eq__ = _unsupported_operator("==")  # type: ignore[assignment]
    __ne__ = _unsupported_operator("!=")  # type: ignore[assignment]

    def __bool__(self) -> bool:
        raise _UnsupportedOperation(
            "Variables cannot be evaluated as Python bool. You could use `array` attribute "
            "instead.")


def _node_for(variable: Variable, name: str | None, requires_grad: bool) -> VariableNode:
    node = _new_node(VariableNode, variable)
    node._revived = None
    node._data = None
    node.name = name
    node._creator_node = None
    node.rank = 0
    node._requires_grad = requires_grad
    node._set_data_type(variable._array)
    return node


# NOTE [pickles]
# Variables and Parameters pickle as a call of a module-level function, as Chainer's do, with
# Chainer 7.8.1's arguments in Chainer's order and at Chainer's paths (chainer.variable.
# _create_variable, chainer.variable._recover_parameter). So an object pickled by Chainer loads
# here once `chainer` is the alias (install_as_chainer, or python -m chainer_compat), and ours
# carry the same arguments. The functions also read the shorter argument lists of older pickles,
# Chainer's and ours.
def _create_variable(data: Any, name: str | None, grad: Any, requires_grad: bool,
                     device: Any = None) -> Variable:
    # The flag is restored as it was, without the check for an explicit requires_grad=True.
    variable = Variable(data, name=name, grad=grad)
    variable._node._requires_grad = bool(requires_grad)
    _restore_device(variable, device)
    return variable


def _restore_device(variable: Variable, device: Any) -> None:
    """Moves an unpickled Variable to the device it was pickled on, unless it is there already."""
    if device is None or isinstance(device, backend.CpuDevice):
        return  # NumPy arrays unpickle on the CPU: nothing to move
    variable.to_device(device)


# The instance fields besides _grad_var that cleargrad may change (the class holds defaults).
_GRADIENT_FIELDS = ("_grad_initializer", "_grad_valid")


class Parameter(Variable):
    """A Variable that a Link trains, possibly initialized lazily.

    Args:
        initializer: An array (used as the data), a scalar (filled everywhere), a callable
            initializer, or None (NaN). Without ``shape`` and with a non-array initializer the
            parameter stays uninitialized until :meth:`initialize` is called.
        shape: Shape of the data array.
        name: Name of the parameter.
        layout: Chainer's memory layout; only None (the standard layout) is supported.

    Raises:
        ValueError: If ``layout`` is not None.
    """

    __slots__ = ()

    # compat: class-level defaults, because subclasses may skip __init__ (e.g. via copy).
    initializer: Any = None
    update_rule: Any = None
    _grad_initializer: Any = None
    _initial_device: Any = None
    # NOTE [unset parameter gradient]
    # compat: Chainer refuses to read the gradient of a Parameter made without data until it is
    # set, cleared or initialized: the gradient does not exist yet, and reading None would hide
    # that. An uninitialized Parameter keeps False in its instance dict (so copies and pickles
    # keep it); setting the gradient, cleargrad, zerograd and initialize remove it. Chainer
    # also raises after a backward has computed a gradient (for a Parameter whose array was
    # assigned directly); we return that gradient, since it exists.
    _grad_valid = True

    def __init__(self, initializer: Any = None, shape: Any = None,
                 name: str | None = None, *, layout: Any = None) -> None:
        from chainer_compat import initializers  # layer 8 sibling, needed only at construction

        _check_standard_layout(layout)

        if initializer is None:
            initializer = initializers.NaN()
        elif numpy.isscalar(initializer):
            initializer = initializers.Constant(initializer)
        if shape is None:
            if _is_array(initializer):
                super().__init__(initializer, name=name)
                self.initializer = initializers.Constant(initializer)
            else:
                super().__init__(name=name)
                self.initializer = initializer
                self._grad_initializer = initializers.NaN(getattr(initializer, "dtype", None))
                self._grad_valid = False  # NOTE [unset parameter gradient]
        else:
            if _is_array(initializer):
                initializer = initializers.Constant(initializer)
            data = initializers.generate_array(initializer, shape, numpy)
            super().__init__(data, name=name)
            self._grad_var = Variable(numpy.full_like(data, numpy.nan))
            self.initializer = initializer
        self.update_rule = None

    def __copy__(self) -> Parameter:
        result = super().__copy__()
        return result  # type: ignore[return-value]

    def __reduce__(self) -> tuple[Any, ...]:
        grad_var = self._grad_var
        # compat: Chainer 7.8.1's seven arguments, in its order (NOTE [pickles]).
        return _recover_parameter, (self._array, self.name,
                                    None if grad_var is None else grad_var._array,
                                    self._grad_valid, self.initializer, self.update_rule,
                                    self.device)

    @property
    def grad(self) -> Any:
        """The gradient array, or None.

        Raises:
            RuntimeError: If the Parameter was made without data and its gradient has not
                been set, cleared or initialized since (NOTE [unset parameter gradient]).
        """
        grad_var = self._grad_var
        if grad_var is not None:
            return grad_var._array
        if not self._grad_valid:
            # compat: Chainer's wording, which code may match on.
            raise RuntimeError(
                "Cannot retrieve Variable.grad. Either it must be set manually or "
                "Variable.cleargrad() must be called beforehand.")
        return None

    @grad.setter
    def grad(self, g: Any) -> None:
        Variable._set_grad(self, g)
        self._validate_grad()

    def _validate_grad(self) -> None:
        """Marks the gradient as set (NOTE [unset parameter gradient])."""
        self.__dict__.pop("_grad_valid", None)

    @property
    def dtype(self) -> Any:
        if self._array is not None:
            return self._array.dtype
        return numpy.dtype(getattr(self.initializer, "dtype", None) or numpy.float32)

    @property
    def is_initialized(self) -> bool:
        """Whether the data array exists."""
        return self._array is not None

    def cleargrad(self) -> None:
        """Sets the gradient to None (and forgets a pending gradient initializer)."""
        super().cleargrad()
        self._validate_grad()
        if self._array is None:
            self._grad_initializer = None

    def _gradient_state(self) -> tuple[Any, dict[str, Any]]:
        """What cleargrad changes, for an optimizer to put back when a backward fails."""
        fields = self.__dict__
        return self._grad_var, {key: fields[key] for key in _GRADIENT_FIELDS if key in fields}

    def _restore_gradient_state(self, state: tuple[Any, dict[str, Any]]) -> None:
        self._grad_var, saved = state
        fields = self.__dict__
        for key in _GRADIENT_FIELDS:
            if key in saved:
                fields[key] = saved[key]
            else:
                fields.pop(key, None)

    def zerograd(self) -> None:
        """Fills the gradient with zeros, now or at initialization."""
        # Chainer warns here for initialized and uninitialized Parameters alike.
        warnings.warn("Variable.zerograd is deprecated. Use Variable.cleargrad instead.",
                      DeprecationWarning, stacklevel=1)
        self._validate_grad()
        if self._array is None:
            from chainer_compat import initializers  # see __init__
            self._grad_initializer = initializers.Zero(getattr(self.initializer, "dtype", None))
            return
        self._fill_grad_with_zeros()  # not zerograd(), which would warn a second time

    def initialize(self, shape: Any) -> None:
        """Creates the data (and gradient) array of the given shape with the initializer."""
        from chainer_compat import initializers  # see __init__

        device = self._initial_device
        xp = numpy if device is None or device.xp is numpy else device.xp
        data = initializers.generate_array(self.initializer, shape, xp)
        if device is not None:
            data = device.send(data)
        self.array = data
        grad_initializer = self._grad_initializer
        if grad_initializer is None:
            self._grad_var = None
        else:
            # compat: the gradient initializer stays, as in Chainer: initializing again gives a
            # NaN-filled gradient again.
            self._grad_var = Variable(initializers.generate_array(
                grad_initializer, shape, xp, dtype=data.dtype))
        self._validate_grad()

    def to_device(self, device: Any) -> None:
        device = backend.get_device(device)
        if self._array is None:
            if (self._initial_device or backend.CpuDevice()) != device:
                self._leave_shared_array()  # compat: as Chainer renews the shared slot
            self._initial_device = device
        else:
            super().to_device(device)

    def update(self) -> None:
        """Updates the data with the update rule, if one is set."""
        if self.update_rule is not None:
            self.update_rule.update(self)


def _recover_parameter(*args: Any) -> Parameter:
    """Rebuilds an unpickled Parameter (NOTE [pickles]).

    The arguments are ``(data, name, grad, grad_valid, initializer, update_rule, device)`` as
    Chainer 7.8.1 and chainer_compat write them, or one of the shorter lists of older pickles:
    Chainer 6's, without ``grad_valid``; an early chainer_compat's, with ``grad_valid`` last and
    no device; or five, without either.
    """
    device = None
    grad_valid = True
    if len(args) == 7:
        data, name, grad, grad_valid, initializer, update_rule, device = args
    elif len(args) == 6 and isinstance(args[5], bool):
        data, name, grad, initializer, update_rule, grad_valid = args
    elif len(args) == 6:
        data, name, grad, initializer, update_rule, device = args
    elif len(args) == 5:
        data, name, grad, initializer, update_rule = args
    else:
        raise ValueError(
            f"a pickled Parameter must have 5, 6 or 7 arguments, got {len(args)}: the pickle was "
            "not written by Chainer 5-7 or chainer_compat")
    if data is None:
        param = Parameter(initializer=initializer, name=name)
        if grad is not None:
            param.grad = grad
        elif grad_valid:
            param._validate_grad()
    else:
        param = Parameter(initializer=data, name=name)
        param.initializer = initializer  # keep the real initializer, not the data
        param.grad = grad
    param.update_rule = update_rule
    _restore_device(param, device)
    return param


def _check_standard_layout(layout: Any) -> None:
    """Accepts Chainer's ``layout`` argument when it names the standard layout (None)."""
    if layout is not None:
        raise ValueError(
            f"layout must be None (chainer_compat keeps arrays in the standard layout), got "
            f"{layout!r}: pass the array in the standard layout, or convert it explicitly with "
            "chainer_compat.memory_layouts.AsLayout")


def as_variable(obj: Any) -> Variable:
    """Returns ``obj`` if it is a Variable, else a Variable around it that requires no grad."""
    if isinstance(obj, Variable):
        return obj
    return Variable(obj, requires_grad=False)


def as_array(obj: Any) -> Any:
    """Returns the array of a Variable, or ``obj`` itself."""
    if isinstance(obj, Variable):
        return obj._array
    return obj

