"""THE backprop engine: ``Variable.backward``, ``backward()`` and ``grad()`` share one loop.

Layer 6: imports variable, function_node, function_hook and the basic operators below it.
"""

from __future__ import annotations

import heapq
import itertools
import shutil
import traceback
import warnings
import weakref
from collections.abc import Iterable, Sequence, Set
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat import variable as _variable_module
from chainer_compat.configuration import config as _config
from chainer_compat.configuration import thread_flags as _thread_flags
from chainer_compat.configuration import using_config
from chainer_compat.function_node import _ALL_INDEXES, FunctionNode, _base_backward_accumulate
from chainer_compat.functions.math import basic_math
from chainer_compat.variable import Variable, VariableNode, _check_grad_type, _new_unlinked_variable

_ndarray = numpy.ndarray
_weakref = weakref.ref
_heappush = heapq.heappush
_heappop = heapq.heappop


# NOTE [engine fast path]
# Most steps have one output, no hooks, no lazy summation and no backward_accumulate, and run
# without retain_grad, grad()'s capture or debug checks. _Run.run handles that case inline (a
# method call costs as much as the work it would wrap); everything else goes through the named
# helpers below, which are the reference behaviour. _FORCE_GENERAL_PATH makes every step take
# the helpers, so tests can check the two give identical results. In a chain each step queues
# exactly one function while nothing else is pending; that one is kept aside (``solo``) and run
# next without going through the heap, in the same order the heap would give.
_FORCE_GENERAL_PATH = False
_FIRST_ONLY = (0,)


class _LazySum(list):
    """Gradients of one node kept apart until they are all known (``lazy_grad_sum``)."""

    __slots__ = ()


def _add_grads(a: Variable, b: Variable) -> Variable:
    """Sums two gradients of one node.

    When the backward records no graph and no hook is registered, the arrays are added
    directly: the sum is then indistinguishable from what the ``_ + _`` node would give, minus
    a node. Otherwise it goes through that node, so double backprop can differentiate the sum
    and hooks see it, as in Chainer.
    """
    flags = _thread_flags.flags
    if flags.enable_backprop or flags.hooks:
        return a + b
    total = a._array + b._array
    if type(total) is not _ndarray and isinstance(total, numpy.generic):
        total = numpy.asarray(total)
    return _new_unlinked_variable(total, a._node._requires_grad or b._node._requires_grad)


def _total(grad: Any) -> Any:
    """Collapses a lazily kept list of gradients into one Variable."""
    if type(grad) is _LazySum:
        return grad[0] if len(grad) == 1 else basic_math.add(*grad)
    return grad


class _Run:
    """The state of one backprop: the grad table, the heap of pending functions, options.

    Args:
        targets: Nodes whose gradient is wanted (``grad()``), or None for every node that
            requires a gradient (``backward()``).
        load_leaf_grads: Accumulate into the leaves' existing gradients (``backward()``).
        retain_grad: Store the gradient of every intermediate Variable.
        loss_scale: Loss scale recorded on the Variables that receive gradients.
    """

    __slots__ = ("grads", "pending", "queued", "counter", "targets", "load_leaf_grads",
                 "retain_grad", "loss_scale", "leaves", "captured", "capture_nodes",
                 "debug")

    def __init__(self, targets: set[VariableNode] | None, load_leaf_grads: bool,
                 retain_grad: bool, loss_scale: float | None) -> None:
        self.grads: dict[VariableNode, Any] = {}
        self.pending: list[tuple[int, int, FunctionNode]] = []
        self.counter = itertools.count()  # breaks ties in rank: first queued, first run
        # The functions this run queued. Kept by the run, not marked on the nodes: another run
        # over a shared part of the graph (a grad() inside a backward or a hook, or another
        # thread) must not make this one queue a function twice.
        self.queued: set[FunctionNode] = set()
        self.targets = targets
        self.load_leaf_grads = load_leaf_grads
        self.retain_grad = retain_grad
        self.loss_scale = loss_scale
        self.leaves: list[VariableNode] = []
        self.captured: dict[VariableNode, Any] | None = None
        self.capture_nodes: set[VariableNode] = set()
        self.debug = _config.debug

    # ------------------------------------------------------------------------- the loop
    def run(self) -> None:
        """Visits every pending function once, highest rank first, until none is left.

        An error raised by a step of a function applied in debug mode gets the stack where
        that function was applied, as in Chainer.
        """
        try:
            self.visit_all()
        except Exception as error:
            _add_creation_stack(error)
            raise

    def visit_all(self) -> None:
        """The loop of :meth:`run`; see NOTE [engine fast path] for its inlined common case."""
        grads = self.grads
        pending = self.pending
        targets = self.targets
        queued = self.queued
        flags = _thread_flags.flags  # NOTE [fast flags]
        hooks = flags.hooks  # mutated in place by registrations
        tick = self.counter.__next__
        load_preset = self.load_leaf_grads  # NOTE [preset gradients]
        plain = (self.captured is None and not self.retain_grad and not self.debug
                 and not _FORCE_GENERAL_PATH)
        # The one function a step queued while nothing else was pending: a chain's next step
        # skips the heap (NOTE [engine fast path]).
        solo: FunctionNode | None = None
        # ``func`` is read by name from this frame by _add_creation_stack when a step fails.
        while True:
            if solo is not None:
                func = solo
                solo = None
            elif pending:
                func = _heappop(pending)[2]
            else:
                break
            # 1. Gather the output gradients: complete, since every consumer ran before.
            outputs = func._graph_outputs  # NOTE [compact links]
            if plain and type(outputs) is _weakref:
                node = outputs()
                grad = None if node is None else grads.pop(node, None)
                if grad is None:
                    if node is not None and load_preset:
                        grad = _take_preset_grad(node)
                elif type(grad) is _LazySum:
                    grad = _total(grad)
                output_grads: tuple[Any, ...] = (grad,)
                del grad
                if node is not None and node._array_type is not _ndarray:
                    device = _other_device(func, output_grads)  # NOTE [backward device]
                    if device is not None:
                        self.step_on(device, func, output_grads, hooks)
                        continue
            else:
                output_grads = self.pop_output_grads(func)
                device = _other_device(func, output_grads)
                if device is not None:
                    self.step_on(device, func, output_grads, hooks)
                    continue
            # 2. Skip the function if none of its inputs wants a gradient.
            input_nodes = func._graph_inputs
            indexes: tuple[int, ...]
            if type(input_nodes) is VariableNode:  # one input: NOTE [compact links]
                if targets is None:
                    indexes = _FIRST_ONLY if input_nodes._requires_grad else ()
                else:
                    indexes = _FIRST_ONLY if input_nodes in targets else ()
                input_nodes = (input_nodes,)
            elif targets is None:
                for x in input_nodes:
                    if not x._requires_grad:
                        indexes = tuple([i for i, other in enumerate(input_nodes)
                                         if other._requires_grad])
                        break
                else:  # every input wants a gradient: no list to build
                    count = len(input_nodes)
                    indexes = _ALL_INDEXES[count] if count < 9 else tuple(range(count))
            else:
                indexes = tuple([i for i, x in enumerate(input_nodes) if x in targets])
            if not indexes:
                continue
            # 3. One backward step; 4. hand its gradients to the table.
            if (not plain or hooks or func._local_function_hooks or func.lazy_grad_sum
                    or type(func).backward_accumulate is not _base_backward_accumulate):
                self.step_with_any_hooks(func, indexes, output_grads, hooks)
                del output_grads
                self.push_creators(func, indexes)
                continue
            input_grads = func.backward(indexes, output_grads)
            del output_grads  # consumed: the table no longer holds them either
            if type(input_grads) is not tuple or len(input_grads) != len(indexes):
                input_grads = self.select_targets(func, indexes, input_grads)
            for i, gx in zip(indexes, input_grads):
                if gx is None:
                    continue
                node = input_nodes[i]
                if type(gx) is not Variable:
                    self.check_grad(func, i, node, gx)
                array = gx._array
                if (type(array) is not node._array_type or array.dtype is not node.dtype
                        or array.shape != node.shape):
                    self.check_grad(func, i, node, gx)
                creator = node._creator_node
                if creator is None:  # a leaf: backward() may add to its existing gradient
                    self.accumulate(node, gx, False)
                    continue
                before = grads.get(node)
                if before is None:
                    grads[node] = gx
                elif type(before) is Variable and not (flags.enable_backprop or flags.hooks):
                    # _add_grads inlined (a node used twice is common: residuals, fan-in).
                    total = before._array + array
                    if type(total) is not _ndarray and isinstance(total, numpy.generic):
                        total = numpy.asarray(total)
                    grads[node] = _new_unlinked_variable(
                        total, before._node._requires_grad or gx._node._requires_grad)
                else:
                    self.accumulate(node, gx, False)
                # 5. Queue the creator of each input that received a gradient, once.
                if creator not in queued:
                    queued.add(creator)
                    if solo is None and not pending:
                        solo = creator
                    else:
                        if solo is not None:  # queued first, so it keeps its place in ties
                            _heappush(pending, (-solo.rank, tick(), solo))
                            solo = None
                        _heappush(pending, (-creator.rank, tick(), creator))

    def step_on(self, device: Any, func: FunctionNode, output_grads: tuple[Any, ...],
                hooks: Any) -> None:
        """A whole step, hooks included, with ``device`` current (NOTE [backward device])."""
        input_nodes = func.inputs
        if self.targets is None:
            indexes = tuple([i for i, x in enumerate(input_nodes) if x._requires_grad])
        else:
            indexes = tuple([i for i, x in enumerate(input_nodes) if x in self.targets])
        if not indexes:
            return
        with device:
            self.step_with_any_hooks(func, indexes, output_grads, hooks)
        self.push_creators(func, indexes)

    def push_creators(self, func: FunctionNode, indexes: tuple[int, ...]) -> None:
        """Queues the creators of ``func``'s inputs that received a gradient."""
        grads = self.grads
        input_nodes = func.inputs
        for i in indexes:
            node = input_nodes[i]
            if node in grads:
                self.push(node._creator_node)

    # ------------------------------------------------------------------------- helpers
    def push(self, func: FunctionNode | None) -> None:
        """Queues a function once; ties in rank go to the one queued first."""
        if func is not None and func not in self.queued:
            self.queued.add(func)
            _heappush(self.pending, (-func.rank, next(self.counter), func))

    def seed(self, node: VariableNode, grad: Variable) -> None:
        """Starts backprop at ``node`` with gradient ``grad``."""
        self.accumulate(node, grad, False)
        self.push(node._creator_node)

    def pop_output_grads(self, func: FunctionNode) -> tuple[Any, ...]:
        """Takes the gradients of ``func``'s outputs out of the table (they are complete)."""
        grads = self.grads
        result: list[Any] = []
        for ref in func.outputs:
            node = ref()
            if node is None or node._creator_node is None:
                # compat: an output that unchain() cut off is a root now, as in Chainer: its
                # gradient stays in the table for its Variable, and none flows through it.
                # (A one-output function is never queued through its cut output, so the
                # engine's fast path does not look.)
                result.append(None)
                continue
            grad = grads.pop(node, None)
            if grad is None:
                if self.load_leaf_grads:
                    grad = _take_preset_grad(node)  # NOTE [preset gradients]
            elif type(grad) is _LazySum:
                grad = _total(grad)
            result.append(grad)
            if self.captured is not None and node in self.capture_nodes:
                self.captured[node] = grad
            if self.retain_grad:
                variable = node.get_variable_or_none()
                if variable is not None:
                    variable._grad_var = grad
        return tuple(result)

    def accumulate(self, node: VariableNode, grad: Variable, lazy: bool) -> None:
        """Adds ``grad`` to the gradient collected so far for ``node``."""
        grads = self.grads
        before = self.collected(node)
        if before is None:
            grads[node] = _LazySum((grad,)) if lazy else grad
            return
        if lazy:
            if type(before) is not _LazySum:
                before = _LazySum((before,))
            before.append(grad)
            grads[node] = before
        else:
            grads[node] = _add_grads(_total(before), grad)

    def accumulate_terms(self, node: VariableNode, terms: list[Variable]) -> None:
        """Adds the gradients one step gave ``node`` (an input it takes more than once) to the
        one collected so far, in one sum: NOTE [one sum per step]."""
        before = self.collected(node)
        if before is not None:
            terms.insert(0, _total(before))
        flags = _thread_flags.flags
        if len(terms) <= 2 or not (flags.enable_backprop or flags.hooks):
            total = terms[0]
            for term in terms[1:]:
                total = _add_grads(total, term)
        else:
            total = basic_math.add(*terms)
        self.grads[node] = total

    def collected(self, node: VariableNode) -> Any:
        """The gradient collected so far for ``node``, or None. For a leaf met first in a
        ``backward()``, that is the gradient set on its Variable (NOTE [preset gradients]), and
        the leaf is recorded for :meth:`finish_leaves`."""
        grads = self.grads
        before = grads.get(node)
        if before is None and node not in grads and self.load_leaf_grads and (
                node._creator_node is None):
            self.leaves.append(node)
            variable = node.get_variable_or_none()
            before = None if variable is None else variable._grad_var
        return before

    def step_with_any_hooks(self, func: FunctionNode, indexes: tuple[int, ...],
                            output_grads: tuple[Any, ...], hooks: Any) -> None:
        """One step, wrapped in the global and local hooks if there are any."""
        if hooks or func._local_function_hooks:
            self.step_with_hooks(func, indexes, output_grads, func._merged_hooks(hooks))
        else:
            self.step(func, indexes, output_grads)

    def step(self, func: FunctionNode, indexes: tuple[int, ...],
             output_grads: tuple[Any, ...]) -> None:
        """Runs one function's backward and hands the input gradients to the table."""
        if type(func).backward_accumulate is not _base_backward_accumulate:
            self.step_accumulate(func, indexes, output_grads)
            return
        input_grads = func.backward(indexes, output_grads)
        if type(input_grads) is not tuple or len(input_grads) != len(indexes):
            input_grads = self.select_targets(func, indexes, input_grads)
        input_nodes = func.inputs
        lazy = func.lazy_grad_sum
        debug = self.debug
        grads = self.grads
        # An input taken more than once (x * x) gets one sum per step: NOTE [one sum per step].
        repeated = _repeated(input_nodes)
        terms: dict[VariableNode, list[Variable]] = {}
        for i, gx in zip(indexes, input_grads):
            if gx is None:
                continue
            node = input_nodes[i]
            # Fast check of the common case; check_grad explains any mismatch.
            if not isinstance(gx, Variable):
                self.check_grad(func, i, node, gx)
            array = gx._array
            if (type(array) is not node._array_type or array.dtype is not node.dtype
                    or array.shape != node.shape or debug):
                self.check_grad(func, i, node, gx)
            if lazy:
                self.accumulate(node, gx, True)
            elif node in repeated:
                terms.setdefault(node, []).append(gx)
            elif node in grads or node._creator_node is None:
                self.accumulate(node, gx, False)
            else:
                grads[node] = gx
        for node, node_terms in terms.items():
            self.accumulate_terms(node, node_terms)

    def step_accumulate(self, func: FunctionNode, indexes: tuple[int, ...],
                        output_grads: tuple[Any, ...]) -> None:
        """One step for a function that fuses accumulation into ``backward_accumulate``."""
        input_nodes = func.inputs
        grads = self.grads
        taken: set[VariableNode] = set()
        before: list[Any] = []
        for i in indexes:
            node = input_nodes[i]
            if node in taken:
                before.append(None)
                continue
            taken.add(node)
            if node not in grads and self.load_leaf_grads and node._creator_node is None:
                self.leaves.append(node)
                variable = node.get_variable_or_none()
                before.append(None if variable is None else variable._grad_var)
            else:
                before.append(_total(grads.pop(node, None)))
        input_grads = func.backward_accumulate(indexes, output_grads, tuple(before))
        if type(input_grads) not in (tuple, list):
            raise TypeError(func._get_error_message(
                "backward_accumulate must return a tuple of gradients (one per target input "
                f"index), got {type(input_grads).__name__}{_missing_return_hint(input_grads)}"))
        if len(input_grads) != len(indexes):
            raise ValueError(func._get_error_message(
                "number of gradients returned from backward_accumulate is incorrect: "
                f"{len(input_grads)} != expected {len(indexes)} (one per target input index)"))
        for i, gx in zip(indexes, input_grads):
            if gx is None:
                continue
            node = input_nodes[i]
            self.check_grad(func, i, node, gx)
            existing = grads.get(node)
            grads[node] = gx if existing is None else _add_grads(_total(existing), gx)

    def step_with_hooks(self, func: FunctionNode, indexes: tuple[int, ...],
                        output_grads: tuple[Any, ...], hooks: list[Any]) -> None:
        """One step wrapped in the backward pre- and post-hooks."""
        in_data = tuple([x._data for x in func.inputs])
        out_grad = tuple([None if g is None else g._array for g in output_grads])
        for hook in hooks:
            hook.backward_preprocess(func, in_data, out_grad)
        self.step(func, indexes, output_grads)
        for hook in hooks:
            hook.backward_postprocess(func, in_data, out_grad)

    def select_targets(self, func: FunctionNode, indexes: tuple[int, ...],
                       input_grads: Any) -> tuple[Any, ...]:
        """Checks what backward returned; keeps the target gradients of one per input."""
        if type(input_grads) not in (tuple, list):
            # compat: Chainer's debug mode reports this as a gradient of the wrong type
            # (ValueError), iterating what backward returned; None does not iterate, so it
            # stays the TypeError it is outside debug mode.
            debug = self.debug and input_grads is not None
            error = ValueError if debug else TypeError
            prefix = "type of gradients returned from backward is incorrect: " if debug else ""
            raise error(func._get_error_message(
                f"{prefix}backward must return a tuple of gradients (one per input, or one per "
                f"target index), got {type(input_grads).__name__}"
                f"{_missing_return_hint(input_grads)}"))
        count = len(input_grads)
        total = len(func.inputs)
        if count == len(indexes):
            return tuple(input_grads)  # a list with one gradient per target index
        if count == total:
            return tuple([input_grads[i] for i in indexes])
        expected = f"{total}" if total == len(indexes) else f"{total} or {len(indexes)}"
        raise ValueError(func._get_error_message(
            f"number of gradients returned from backward is incorrect: {count} != expected "
            f"{expected}"))

    def check_grad(self, func: FunctionNode, index: int, node: VariableNode, gx: Any) -> None:
        """Rejects a gradient that is not a Variable matching the input's array."""
        if not isinstance(gx, Variable):
            # compat: Chainer's debug mode raises ValueError here (and an AttributeError
            # without it); outside debug mode, the TypeError this is.
            error = ValueError if self.debug else TypeError
            raise error(func._get_error_message(
                f"type of gradients returned from backward is incorrect: input {index} got "
                f"{type(gx).__name__} != expected Variable (wrap arrays with "
                "chainer_compat.Variable, or use an old-style Function)"))
        array = gx._array
        if (type(array) is not node._array_type or array.shape != node.shape
                or array.dtype != node.dtype):
            if self.debug and not func._old_style:
                _check_grad_in_debug_mode(func, index, node, array, self._has_grad(node))
            _check_grad_type(func, node, True, array)
        if self.debug and array.dtype.kind in "fc":
            if bool(backend.get_array_module(array).isnan(array).any()):
                raise RuntimeError(
                    f"NaN is detected on backward computation of {func.label}"
                    + func._creation_site())

    def _has_grad(self, node: VariableNode) -> bool:
        """Whether ``node`` already has a gradient: from this run, or a leaf's own."""
        if node in self.grads:
            return True
        if not (self.load_leaf_grads and node._creator_node is None):
            return False
        variable = node.get_variable_or_none()
        return variable is not None and variable._grad_var is not None

    def finish_leaves(self) -> None:
        """Stores the collected gradients in the leaf Variables (``backward()``)."""
        grads = self.grads
        loss_scale = self.loss_scale
        for node in self.leaves:
            grad = _total(grads.pop(node, None))
            variable = node.get_variable_or_none()
            if variable is not None:
                variable._grad_var = grad
                variable._loss_scale = loss_scale


def _add_creation_stack(error: Exception) -> None:
    """Appends to ``error`` the stack where the failing step's function was applied.

    The function is the one ``visit_all`` was running when ``error`` left it: found in the
    traceback, so the loop pays nothing for this when nothing fails. Only functions applied in
    debug mode have a stack.
    """
    trace = error.__traceback__
    while trace is not None and trace.tb_frame.f_code is not _VISIT_ALL_CODE:
        trace = trace.tb_next
    if trace is None:
        return
    func = trace.tb_frame.f_locals.get("func")
    stack = getattr(func, "stack", None)
    if not stack or getattr(error, "_creation_stack_added", False):
        return
    # compat: Chainer's wording and layout, which puts the stack after the first argument.
    addition = ("\n" + "-" * shutil.get_terminal_size().columns
                + "\nStacktrace of the function is below:\n"
                + "".join(traceback.format_list(stack[:-1])))
    if not error.args:
        error.args = (addition,)
    elif isinstance(error.args[0], str):
        error.args = (error.args[0] + addition,) + error.args[1:]
    else:
        return
    error._creation_stack_added = True  # type: ignore[attr-defined]  # once, in nested runs


_VISIT_ALL_CODE = _Run.visit_all.__code__

_NO_NODES: frozenset[VariableNode] = frozenset()


def _repeated(input_nodes: Sequence[VariableNode]) -> Set[VariableNode]:
    """The nodes a function takes more than once among its inputs (NOTE [one sum per step])."""
    if len(input_nodes) < 2:
        return _NO_NODES
    seen: set[VariableNode] = set()
    repeated: set[VariableNode] = set()
    for node in input_nodes:
        (repeated if node in seen else seen).add(node)
    return repeated


# NOTE [one sum per step]
# compat: Chainer sums the gradients a backward step gives one input together with the one
# collected so far, in one call of F.add: ``existing + g`` (an ``_ + _`` node) for one new
# gradient, and ``MultiAdd(existing, g0, g1)`` when the function takes that input twice
# (``x * x``). The sum is the same left to right, but with backprop on it is a different
# graph: a MultiAdd's backward hands its inputs their gradients at once, where a chain of two
# adds hands them out in two steps, so a second-order gradient sums in another order and can
# differ in the last bit; hooks see the nodes too. Steps whose function takes no input twice
# (all but a few) add as before.


# NOTE [backward device]
# As in Chainer, a backward step runs with the device of its arrays current: the first CuPy array
# among the inputs' retained arrays and the output gradients decides (NumPy arrays: no device).
# A backward that allocates (xp.zeros, a kernel launch) then lands on that GPU even when another
# one is current, as on a multi-GPU machine. Entering a device costs host time, so the engine
# does it only when that device is not the current one already, and looks at all only when a
# gradient is not a NumPy array.
def _other_device(func: FunctionNode, output_grads: tuple[Any, ...]) -> Any:
    """The ``cupy.cuda.Device`` the step must enter, or None when no switch is needed."""
    for gy in output_grads:
        if gy is not None:
            if type(gy._array) is _ndarray:
                return None
            break
    else:
        return None
    arrays = tuple([x._data for x in func.inputs])
    arrays += tuple([gy._array for gy in output_grads if gy is not None])
    return backend.cuda_device_to_enter(arrays)


# NOTE [preset gradients]
# compat: what Chainer does with gradients a user set on Variables before backprop. The
# backward() front doors take their starting Variables' gradients (Variable.backward clears its
# own; chainer.backward(outputs) clears the ones it takes). During the run, an output with no
# gradient in the table hands over the one set on its Variable, which is then cleared: so
# the preset gradient of an unused sibling output (say, of split_axis) flows back, once. Every
# other preset gradient (of an intermediate Variable that received one through the table, or any
# in grad()) is left as it was. Only the table's gradients are dropped as they are consumed.
def _take_preset_grad(node: VariableNode) -> Variable | None:
    """The gradient set on ``node``'s Variable, taken from it (None when there is none)."""
    variable = node.get_variable_or_none()
    if variable is None:
        return None
    grad = variable._grad_var
    if grad is not None:
        variable._grad_var = None
    return grad


def _missing_return_hint(value: Any) -> str:
    return ": is backward missing a return statement?" if value is None else ""


def _check_grad_in_debug_mode(func: FunctionNode, index: int, node: VariableNode,
                              array: Any, has_grad: bool) -> None:
    """Raises the ValueError Chainer's debug mode raises for a gradient of another shape than
    its input, or of another dtype than the gradient it already has (``has_grad``); the other
    cases, and every case outside debug mode, :func:`_check_grad_type` reports."""
    for what, actual, expected in (("shape", array.shape, node.shape),
                                   ("dtype", array.dtype, node.dtype)):
        if actual != expected and (what == "shape" or has_grad):
            raise ValueError(func._get_error_message(
                f"{what} of gradients returned from backward is incorrect: "
                f"input-index={index}, actual {actual} != expected {expected}"))


# --------------------------------------------------------------------------------- front doors
def _initial_grad(var: Variable, loss_scale: float | None) -> Variable:
    grad_var = var._grad_var
    if grad_var is not None:
        return grad_var
    array = var._array
    if array.size == 0:
        # compat: nothing to seed, and Chainer runs the backward all the same (the inputs get
        # gradients of zeros): an empty gradient does just that.
        return Variable(backend.get_array_module(array).zeros_like(array))
    if array.size != 1:
        raise ValueError(
            f"Variable.backward() must start from a scalar or from a Variable whose grad is set,"
            f" got a variable of shape {array.shape} with grad None: set y.grad = "
            "xp.ones_like(y.array) (or the gradient you want), or reduce y to a scalar first "
            "(e.g. F.sum(y))")
    if array.ndim != 0:
        warnings.warn(
            "Treating a variable with only one element as a scalar in Variable.backward is "
            "deprecated. A scalar variable must be a 0-dimensional array. Apply "
            "chainer.functions.squeeze to obtain a scalar variable. If the size of this "
            "variable accidentally becomes one, set zero to grad.", DeprecationWarning,
            stacklevel=1)
    xp = backend.get_array_module(array)
    ones = xp.ones_like(array)
    if loss_scale is not None:
        ones *= loss_scale
    var._grad_var = grad_var = Variable(ones)
    return grad_var


def backward_from_variable(var: Variable, retain_grad: bool, enable_double_backprop: bool,
                           loss_scale: float | None) -> None:
    """``Variable.backward``: backprop from one Variable into every leaf that wants a grad."""
    if var._node._creator_node is None:
        if var._graph_cut:  # issue 9's choice; Chainer treats it as a leaf
            raise RuntimeError(
                "Variable.backward() must run before unchain_backward() cuts the graph, got a "
                "variable whose graph was cut (no gradient would reach its inputs): call "
                "backward() before unchain_backward() (or unchain())")
        # compat: a leaf is its own gradient target, as in Chainer: one element and no
        # gradient yet gets ones (times loss_scale); anything else is left as it is.
        array = var._array
        if array is not None and array.size == 1 and var._grad_var is None:
            _initial_grad(var, loss_scale)
        return
    array = var._array
    if (var._grad_var is None and array is not None and array.size != 1
            and array.dtype.kind in "biu"):
        # compat: an integer or boolean output (F.argmax's, say) carries no gradient, so there
        # is nothing to start from and nothing to propagate; Chainer returns quietly here too.
        return
    grad = _initial_grad(var, loss_scale)
    var._grad_var = None  # taken, as Chainer's backward takes it (NOTE [preset gradients])
    _backprop_to_all([(var.node, grad)], retain_grad, enable_double_backprop, loss_scale)


def _backprop_to_all(seeds: list[tuple[VariableNode, Variable]], retain_grad: bool,
                     enable_double_backprop: bool, loss_scale: float | None) -> None:
    run = _Run(None, True, retain_grad, loss_scale)
    for node, grad in seeds:
        run.seed(node, grad)
    if enable_double_backprop == _config.enable_backprop:
        run.run()
    else:
        with using_config("enable_backprop", enable_double_backprop):
            run.run()
    run.finish_leaves()


def backward(outputs: Any, grad_outputs: Any = None, **kwargs: Any) -> None:
    """Runs backprop from several Variables at once.

    Args:
        outputs: Sequence of Variables to start from.
        grad_outputs: Their initial gradients; None uses each output's ``grad_var``.
        enable_double_backprop: Record the backward computation (keyword only).

    Raises:
        TypeError: On a non-sequence argument or an unknown keyword.
        ValueError: If ``outputs`` and ``grad_outputs`` differ in length, or on
            ``retain_grad`` or ``loss_scale`` (Variable.backward takes them; this does not).
    """
    enable_double_backprop = kwargs.pop("enable_double_backprop", False)
    # compat: Chainer names these two, with ValueError.
    if "retain_grad" in kwargs:
        raise ValueError("semantics for retain_grad=True is under discussion: chainer.backward "
                         "does not take retain_grad; use Variable.backward(retain_grad=True)")
    if "loss_scale" in kwargs:
        raise ValueError("chainer.backward does not support loss_scale option: scale "
                         "grad_outputs instead, or use Variable.backward(loss_scale=...)")
    if kwargs:
        raise TypeError("backward() got unexpected keyword argument(s) "
                        + ", ".join(repr(k) for k in sorted(kwargs)))
    if not isinstance(outputs, (tuple, list)):
        raise TypeError(f"outputs must be a tuple or a list, not {type(outputs)}.")
    for y in outputs:
        if not isinstance(y, Variable):
            raise TypeError(f"each output must be a Variable, got {type(y).__name__}")
    taken_from_outputs = grad_outputs is None
    if taken_from_outputs:
        # compat: as in Chainer, each output's grad_var is taken once: a repeated output
        # starts from nothing the second time (with the warning), not from its grad again.
        grad_outputs = []
        taken: set[int] = set()
        for y in outputs:
            grad_var = None if id(y) in taken else y._grad_var
            taken.add(id(y))
            if grad_var is None:
                warnings.warn(
                    "outputs contains a Variable without grad, or duplicate outputs. Note that "
                    "chainer.backward does not set default grad.", RuntimeWarning, stacklevel=2)
            grad_outputs.append(grad_var)
    else:
        if not isinstance(grad_outputs, (tuple, list)):
            raise TypeError(
                f"grad_outputs must be a tuple or a list or None, not {type(grad_outputs)}.")
        if len(outputs) != len(grad_outputs):
            raise ValueError(
                "grad_outputs must be of the same length as outputs.\n"
                f"len(outputs) = {len(outputs)}, len(grad_outputs) = {len(grad_outputs)}")
        grad_outputs = [gy if gy is None or isinstance(gy, Variable) else Variable(gy)
                        for gy in grad_outputs]
    seeds = []
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            continue
        _check_grad_type(None, y, False, gy._array)
        seeds.append((y.node, gy))
    if taken_from_outputs:
        for y in outputs:
            y._grad_var = None  # taken, as Chainer's backward takes them
    _backprop_to_all(seeds, False, enable_double_backprop, None)


def _subgraph(outputs: Iterable[Variable], inputs: Iterable[Variable]) -> set[VariableNode]:
    """Nodes on some path from an input to an output: the only ones ``grad()`` visits."""
    consumers: dict[VariableNode, list[FunctionNode]] = {}
    pending = [y._node._creator_node for y in outputs if y._node._creator_node is not None]
    visited: set[FunctionNode] = set()
    while pending:
        func = pending.pop()
        if func in visited:
            continue
        visited.add(func)
        for x in func.inputs:
            if not x._requires_grad:
                continue
            consumers.setdefault(x, []).append(func)
            creator = x._creator_node
            if creator is not None and creator not in visited:
                pending.append(creator)
    required: set[VariableNode] = set()
    stack = [x.node for x in inputs]
    reached: set[FunctionNode] = set()
    while stack:
        node = stack.pop()
        required.add(node)
        for func in consumers.get(node, ()):
            if func in reached:
                continue
            reached.add(func)
            for ref in func.outputs:
                y = ref()
                if y is not None and y in consumers:
                    stack.append(y)
    return required


def _check_sequence(value: Any, name: str, length: int | None, other: str) -> None:
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{name} must be a tuple or a list or None, not {type(value)}.")
    if length is not None and len(value) != length:
        raise ValueError(f"{name} must be of the same length as {other}.\n"
                         f"len({other}) = {length}, len({name}) = {len(value)}")


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, grad_inputs: Any = None,
         set_grad: bool = False, retain_grad: bool = False,
         enable_double_backprop: bool = False, loss_scale: float | None = None) -> list[Any]:
    """See :func:`chainer_compat.grad`."""
    if not isinstance(outputs, (tuple, list)):
        raise TypeError(f"outputs must be a tuple or a list, not {type(outputs)}.")
    if not isinstance(inputs, (tuple, list)):
        raise TypeError(f"inputs must be a tuple or a list, not {type(inputs)}.")
    for name, values in (("outputs", outputs), ("inputs", inputs)):
        for value in values:
            if not isinstance(value, Variable):
                raise TypeError(
                    f"{name} of chainer.grad must be Variables, got {type(value).__name__}: "
                    "pass the Variables themselves (x, not x.array)")
    if grad_outputs is not None:
        _check_sequence(grad_outputs, "grad_outputs", len(outputs), "outputs")
    if grad_inputs is not None:
        _check_sequence(grad_inputs, "grad_inputs", len(inputs), "inputs")

    required = _subgraph(outputs, inputs)
    input_nodes = {x.node for x in inputs}
    run = _Run(required, False, retain_grad, loss_scale)
    # The gradient of an input with a creator is captured when that creator is visited.
    run.captured = {}
    run.capture_nodes = input_nodes
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            ones = backend.get_array_module(y._array).ones_like(y._array)
            if loss_scale is not None:
                ones *= loss_scale
            gy = Variable(ones, requires_grad=False)
        elif not isinstance(gy, Variable):
            gy = Variable(gy, requires_grad=False)
        # compat: Chainer sets each seed, so an output given twice starts from its last
        # gradient, and a grad_inputs entry replaces the seed of an input that is an output.
        node = y.node
        run.grads[node] = gy
        run.push(node._creator_node)
    if grad_inputs is not None:
        for x, gx in zip(inputs, grad_inputs):
            if gx is not None:
                run.grads[x.node] = gx if isinstance(gx, Variable) else Variable(
                    gx, requires_grad=False)
    with using_config("enable_backprop", enable_double_backprop):
        run.run()
    captured = run.captured
    result = []
    for x in inputs:
        node = x.node
        if node in captured:
            result.append(captured[node])
        else:
            result.append(_total(run.grads.get(node)))
    if set_grad:
        for x, gx in zip(inputs, result):
            x._grad_var = gx
    return result


_variable_module._engine = __import__(__name__, fromlist=["_"])
