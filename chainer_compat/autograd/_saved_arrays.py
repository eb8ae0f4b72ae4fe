"""Version checks for arrays kept for backward: fingerprints, explicit versions, preserved copies.

Layer 7: imports configuration, backend, variable and functions._held_value.
``chainer_compat.autograd`` installs :class:`SavedArrayChecker` as
``function_node._saved_arrays`` when it is imported.
"""

from __future__ import annotations

import threading
import weakref
import zlib
from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.configuration import config as _config
from chainer_compat.configuration import thread_flags as _thread_flags
from chainer_compat.functions._held_value import HeldValue
from chainer_compat.variable import Parameter, Variable, VariableNode, _new_variable

_ndarray = numpy.ndarray

# NOTE [saved-array checks]
# NumPy and CuPy cannot tell us when an array is written in place, so a write between forward
# and backward is found by comparing the array when backward reads it (get_retained_inputs,
# get_retained_outputs, ctx.saved_tensors, an old-style backward's inputs) with what it was when
# forward returned. on_retain runs as apply() connects the graph, after forward, so writes
# inside forward are never reported; arrays backward never reads are never compared. Per array:
#
# * NumPy arrays of at most SMALL_NBYTES bytes: an exact copy of their bytes, always. Measured
#   on a 1-element array kept by each node of a 20,000-node chain: about 0.4 us per node,
#   record and comparison together (benchmarks/saved_check.py; it was 0.9 us before the lone
#   record of NOTE [saved records] spared the garbage collector a tuple per node);
#   SMALL_NBYTES of memory at most.
# * Larger NumPy arrays: a CRC-32 of their bytes, only when ``config.check_saved_arrays`` (env
#   CHAINER_COMPAT_CHECK_SAVED_ARRAYS=1) or ``config.debug`` is on as forward returns; about
#   0.25 ms per MiB when saved and again when read, no extra memory. Off: not checked.
# * CuPy arrays (any size): a device copy, under the same switch only, because comparing needs
#   a device synchronisation; costs one copy in device memory while the graph lives.
# * Every array: an explicit version, bumped by ``graph.increment_version`` and
#   ``ctx.mark_dirty`` for writes that announce themselves; catches those writes at any size
#   and on any device. Free until the first bump; afterwards a dictionary lookup per array
#   saved or read.
#
# NOTE [checked once]
# Each saved array is checked by the first backward that reads it; that read retires its
# record (_retire), and a later backward through the same graph reads the array as it is then,
# as Chainer does. Chainer's own DCGAN example depends on it: the discriminator's parameters are
# updated in place between the backward of its loss and the backward of the generator's loss,
# through the same discriminator nodes. Retiring also lets the records go with the reads, so
# they keep no array alive longer than the graph does.
#
# NOTE [checks switched off]
# ``config.check_saved_arrays = 'never'`` (env CHAINER_COMPAT_CHECK_SAVED_ARRAYS=never) reads a
# kept array that changed in place as it is then, as Chainer does, so legacy code that writes
# into kept arrays on purpose runs unmodified: Chainer's thin-stack sentiment example writes
# into the stack an old-style ThinStackGet kept (it keeps every input by default), whose
# backward uses it only for zeros_like. Small arrays are still recorded (the fast path reads no
# configuration); only the comparison's verdict changes, on the slow path. Explicit version
# bumps (increment_version, ctx.mark_dirty) still raise, and allow_mutation_on_saved_tensors
# still preserves values.
#
# NOTE [parameters updated in place]
# The arrays of Parameters are the exception: optimizers update them in place by design, and
# Chainer code may do so between a forward and its first backward (musyoku/ddgm backprops two
# energies through one Linear with an update in between). A changed Parameter array is read as
# it is then, as Chainer reads it; only an explicit version bump (increment_version) on it
# still raises. Checked on the slow path only, once a comparison has found a change.
#
# Values are compared, not write events: a write that stores the same bytes (or an array that
# is modified and restored, as finite differences do) is not reported, because the gradient
# cannot be wrong. Views share their base's values, so a write through a view or through its
# base is found either way. Arrays are never made read-only: writing after backward (an
# optimizer updating its parameters) just works. Replacing a Variable's array (``x.array = a``)
# is not a write and is not checked.
SMALL_NBYTES = 4096


class VersionMismatch(RuntimeError):
    """An array kept for backward was modified in place before backward read it.

    Backward would have computed its gradient from the new values. Only the first backward that
    reads a saved array checks it: later backwards through the same graph read it as it is, as
    in Chainer. Write into a copy instead,
    modify the array only after backward, or record the forward inside
    :func:`chainer_compat.autograd.graph.allow_mutation_on_saved_tensors`.
    """


# Explicit versions by id of the buffer-owning array; an entry goes when that array is freed.
_versions: dict[int, int] = {}


def _owner(array: Any) -> Any:
    """The array that owns the memory ``array`` views (``array`` itself when it owns it)."""
    array_type = type(array)
    base = array.base
    while base is not None and isinstance(base, array_type):
        array = base
        base = array.base
    return array


def _version_of(array: Any) -> int:
    return _versions.get(id(_owner(array)), 0)


def _forget_version(key: int) -> None:
    _versions.pop(key, None)
    _update_lone_records()


def increment_version(*arrays: Any) -> None:
    """Records that arrays were modified in place; see :func:`graph.increment_version`."""
    for array in arrays:
        if isinstance(array, Variable):
            array = array._array
        if array is None:
            continue
        if not (isinstance(array, _ndarray) or backend.is_cupy_array(array)):
            raise TypeError(
                f"increment_version arguments must be NumPy/CuPy arrays or Variables, got "
                f"{type(array).__name__}")
        owner = _owner(array)
        key = id(owner)
        if key not in _versions:
            try:
                weakref.finalize(owner, _forget_version, key)
            except TypeError:
                pass  # an owner without weak references keeps its (tiny) entry
        _versions[key] = _versions.get(key, 0) + 1
    _update_lone_records()


# ------------------------------------------------------------------------------ fingerprints
def _fingerprint(array: Any) -> Any:
    """Fingerprint of an array off the fast path of ``on_retain``; None when none is taken."""
    if isinstance(array, _ndarray):
        if array.nbytes <= SMALL_NBYTES:
            return array.tobytes()
        if _checks_every_size():
            return _Checksum(_crc(array))
        return None
    if _checks_every_size():
        return _DeviceCopy(_copy(array))
    return None


def _checks_every_size() -> bool:
    """Whether large and device arrays are fingerprinted too (check_saved_arrays or debug)."""
    setting = _config.check_saved_arrays
    if setting == "never":  # NOTE [checks switched off]
        return False
    return bool(setting) or bool(_config.debug)


def _copy(array: Any) -> Any:
    """A copy on the array's own device (CuPy copies onto the current one otherwise)."""
    if isinstance(array, _ndarray):
        return array.copy()
    with backend.get_device_from_array(array).create_context():
        return array.copy()


def _crc(array: Any) -> int:
    if array.flags.c_contiguous and array.dtype != object:
        return zlib.crc32(array)
    return zlib.crc32(array.tobytes())


class _Checksum(int):
    """CRC-32 of a large NumPy array's bytes."""

    __slots__ = ()

    def changed(self, array: Any) -> bool:
        return _crc(array) != self


class _DeviceCopy:
    """A copy of a device array, compared bit for bit."""

    __slots__ = ("copy",)

    def __init__(self, copy: Any) -> None:
        self.copy = copy

    def changed(self, array: Any) -> bool:
        with backend.get_device_from_array(array).create_context():
            return not same_bits(self.copy, array)


def _bit_views(array: Any) -> list[Any]:
    if array.dtype.kind == "c":
        return _bit_views(array.real) + _bit_views(array.imag)
    size = array.dtype.itemsize
    if array.dtype.kind != "O" and size in (1, 2, 4, 8):
        # A view with the same item size is valid for any strides.
        return [array.view(f"u{size}")]
    return [array]


def same_bits(a: Any, b: Any) -> bool:
    """Whether two arrays of one shape and dtype hold the same bits (NaN equals itself)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    xp = backend.get_array_module(a)
    return all(bool(xp.all(x == y)) for x, y in zip(_bit_views(a), _bit_views(b)))


# ------------------------------------------------------------------------------ allow mutation
class _Preserve:
    """Process-wide depth of ``allow_mutation_on_saved_tensors`` blocks."""

    depth = 0
    lock = threading.Lock()


def _substitute(node: VariableNode, array: Any) -> Variable:
    """A Variable holding the preserved value in place of the node's (modified) Variable."""
    if not _thread_flags.flags.enable_backprop:
        return _new_variable(array, node._requires_grad)
    return HeldValue(array, "saved value").apply((node.get_variable(),))[0]


# ------------------------------------------------------------------------------ the checker
# NOTE [saved records]
# The records of a function live in its ``_saved_records`` attribute: one flat tuple holding,
# per saved array, (array, fingerprint, version, preserved copy or None); flat, so that saving
# adds one object rather than two for the garbage collector to track. Records are per
# function, not per node, because a node (a parameter's, say) is saved by many functions at
# different times. A record is found by the identity of the array, which also finds an output
# that FunctionNode resurrected around its retained array. Plain attribute access only:
# touching ``func.__dict__`` would turn the instance's inline attributes into a real dict and
# slow every later attribute access on it.
#
# The commonest case, a function keeping one small NumPy array (an old-style Function keeps its
# input), is stored without the tuple: ``_saved_records`` holds the fingerprint bytes alone and
# ``_saved_lone_array`` the array. A tuple is tracked by the cyclic garbage collector until its
# first pass; measured on the old-style chain, the tuple per node cost about 0.5 us of collector
# time per node, more than the check itself. _records_of() gives the flat form of either. The
# lone form is simple enough that FunctionNode writes it (function_node._record_kept, for any
# function keeping one small array) and the old-style adapter verifies it, without calling the
# checker, while ``SavedArrayChecker.lone_records`` says nothing else needs checking (0.4 us per
# old-style node); anything else goes to the checker.
_STRIDE = 4


def _update_lone_records() -> None:
    SavedArrayChecker.lone_records = not _versions and not _Preserve.depth


def _records_of(func: Any) -> tuple[Any, ...] | None:
    """The flat records of ``func`` (see NOTE [saved records]), or None when it saved nothing."""
    records = getattr(func, "_saved_records", None)
    if type(records) is bytes:
        return (func._saved_lone_array, records, 0, None)
    return records


class SavedArrayChecker:
    """What ``FunctionNode`` calls when it keeps an array for backward and when it reads it.

    See NOTE [saved-array checks] for what is detected and what it costs.

    Attributes:
        lone_records: Whether a lone record (NOTE [saved records]) may be written and verified
            inline, without calling the checker: true while no explicit version is recorded and
            no ``allow_mutation_on_saved_tensors`` block is active.
        small_nbytes: The size up to which NumPy arrays are always fingerprinted.
    """

    lone_records = True
    small_nbytes = SMALL_NBYTES

    @staticmethod
    def on_retain(func: Any, nodes: Sequence[VariableNode]) -> None:
        """Records the arrays of ``nodes`` (kept by ``func``), right after its forward.

        FunctionNode writes the lone record of one small array itself (``_record_kept``); the
        records here are the flat tuple form of NOTE [saved records].
        """
        SavedArrayChecker.record_arrays(func, [node._data for node in nodes])

    @staticmethod
    def on_read(func: Any, node: VariableNode) -> Variable | None:
        """Checks the array of ``node`` before ``func``'s backward reads it.

        Returns:
            None to hand out the node's own Variable, or a Variable to hand out instead: one
            holding the value saved inside ``allow_mutation_on_saved_tensors`` (connected to
            the node's Variable, so double backprop reaches it).

        Raises:
            VersionMismatch: If the array was modified in place after ``func``'s forward.
        """
        records: Any = func._saved_records
        if records is None:
            return None
        array = node._data
        if type(records) is bytes:  # the lone record: NOTE [saved records]
            if func._saved_lone_array is array and not _versions and array.tobytes() == records:
                _retire(func, array)
                return None  # the common case: a small array, unchanged
            records = _records_of(func)
        if records[0] is array:
            fingerprint = records[1]
            if (type(fingerprint) is bytes and records[3] is None and not _versions
                    and array.tobytes() == fingerprint):
                _retire(func, array)
                return None  # the common case: a small array, unchanged
            record = records[:_STRIDE]
        else:
            record = _find(records, array)
            if record is None:
                return None
        if record[1] is None and record[3] is None and not _versions:
            _retire(func, array)
            return None  # a large array saved unchecked (no fingerprint, version or copy)
        preserved = check(func, record, lambda: _name_node(func, node),
                          updated_in_place=lambda: _is_parameter(node))
        if preserved is None:
            _retire(func, array)
            return None
        return _substitute(node, preserved)

    @staticmethod
    def record_arrays(func: Any, arrays: list[Any]) -> None:
        """Records arrays kept by ``func``, in the flat tuple form (NOTE [saved records])."""
        new: tuple[Any, ...] = ()
        for array in arrays:
            if array is not None:
                new += _record(array)
        records = _records_of(func)
        func._saved_records = new if records is None else records + new

    @staticmethod
    def read_array(func: Any, array: Any, what: str) -> Any:
        """Checks an array recorded by :meth:`record_arrays`; returns the array to hand out."""
        record = _find(_records_of(func) or (), array)
        if record is None:
            return array
        preserved = check(func, record, lambda: what)
        if preserved is None:
            _retire(func, array)
            return array
        return preserved


def _retire(func: Any, array: Any) -> None:
    """Drops the record of ``array``: a backward has read it and found it unchanged.

    NOTE [checked once]: from then on the array is read as it is, as Chainer reads it. A record
    holding a preserved copy (allow_mutation_on_saved_tensors) stays, so every read gets the
    preserved value.
    """
    records = func._saved_records
    if type(records) is bytes:
        if func._saved_lone_array is array:
            func._saved_records = None
            func._saved_lone_array = None
        return
    for start in range(0, len(records or ()), _STRIDE):
        if records[start] is array:
            if records[start + 3] is None:
                func._saved_records = records[:start] + records[start + _STRIDE:] or None
            return


def _find(records: tuple[Any, ...], array: Any) -> tuple[Any, ...] | None:
    for start in range(0, len(records), _STRIDE):
        if records[start] is array:
            return records[start:start + _STRIDE]
    return None


def _record(array: Any) -> tuple[Any, ...]:
    fingerprint = _fingerprint(array)
    version = _version_of(array) if _versions else 0
    return (array, fingerprint, version, _copy(array) if _Preserve.depth else None)


def check(func: Any, record: tuple[Any, ...], describe: Any,
          updated_in_place: Any = None) -> Any:
    """Compares a record with its array; returns the preserved copy to use instead, or None.

    ``updated_in_place``, when given, is called on a change of value: if it returns True (a
    Parameter's array, NOTE [parameters updated in place]) the array is read as it is now.
    """
    array, fingerprint, version, preserved = record
    if fingerprint is None:
        changed = False
    elif type(fingerprint) is bytes:
        changed = array.tobytes() != fingerprint
    else:
        changed = fingerprint.changed(array)
    bumped = bool(_versions) and _version_of(array) != version
    if preserved is not None:
        # Recorded inside allow_mutation_on_saved_tensors: without a fingerprint a change
        # cannot be ruled out, so the preserved value is used.
        return preserved if changed or bumped or fingerprint is None else None
    if changed and not bumped and (_config.check_saved_arrays == "never" or (
            updated_in_place is not None and updated_in_place())):
        return None
    if changed or bumped:
        raise VersionMismatch(_mismatch_message(func, describe(), array, bumped and not changed,
                                                hint_never=not bumped))
    return None


def _is_parameter(node: VariableNode) -> bool:
    return isinstance(node.get_variable_or_none(), Parameter)


def _name_node(func: Any, node: VariableNode) -> str:
    for index, input_node in enumerate(func.inputs or ()):
        if input_node is node:
            return f"input {index}"
    for index, ref in enumerate(func.outputs or ()):
        if ref() is node:
            return f"output {index}"
    # An output that was dropped and resurrected on its retained array.
    retained = zip(func._output_indexes_to_retain or (), func._retained_output_data or ())
    for index, data in retained:
        if data is node._data:
            return f"output {index}"
    return "a retained array"


def _mismatch_message(func: Any, what: str, array: Any, by_version: bool,
                      hint_never: bool = False) -> str:
    label = func.label
    if by_version:
        actual = ("an array marked as modified (increment_version or ctx.mark_dirty) after "
                  "forward returned")
    else:
        actual = "an array whose contents changed after forward returned"
    first = (f"{what} of {label}, saved for its backward, must not be modified in place until "
             f"that backward has read it, got {actual}")
    return (func._get_error_message(first)
            + f"\n  saved array: {what}, shape={tuple(array.shape)}, dtype={array.dtype}\n"
            "Write into a copy instead (x.array = x.array * 2, not x.array *= 2), modify the "
            "array after backward, or run the forward inside "
            "chainer_compat.autograd.graph.allow_mutation_on_saved_tensors() to keep the saved "
            "value." + (_never_hint(func, what) if hint_never else ""))


def _never_hint(func: Any, what: str) -> str:
    """How to read the array as Chainer would (NOTE [checks switched off]); for a write only,
    since 'never' still raises on a version bump."""
    kept = ("An old-style Function keeps every input unless its forward calls retain_inputs: "
            "if backward does not need this one, leave it out there. "
            if what.startswith("input") and getattr(func, "_keeps_every_input", False) else "")
    return (f"\n{kept}To read arrays changed in place as they are now, as Chainer does (its "
            "backward then computes from the new values), set "
            "chainer.config.check_saved_arrays = 'never' (env "
            "CHAINER_COMPAT_CHECK_SAVED_ARRAYS=never).")
