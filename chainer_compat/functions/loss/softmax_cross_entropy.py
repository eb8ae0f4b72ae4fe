"""``softmax_cross_entropy``: log-softmax followed by the negative log-likelihood of the labels.

Layer 5: imports the core, type_check and ``functions.connection.linear`` (NOTE [gradients
without a node]); the double-backprop path imports the functions of its graph on use.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, NamedTuple

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.configuration import config, thread_flags
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.connection.linear import _may_skip_gradient_nodes
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import sum_in_numpy1_order
from chainer_compat.variable import _new_unlinked_variable

_ndarray = numpy.ndarray
_SOFT_TARGET_LOSSES = ("cross-entropy", "kl-divergence")


def _check_class_weight_option(class_weight: Any) -> None:
    if class_weight is None:
        return
    if isinstance(class_weight, variable.Variable):
        # compat: Chainer raises ValueError here.
        # compat: Chainer's sentence first, which code may match.
        raise ValueError(  # noqa: TRY004
            "class_weight should be a numpy.ndarray or cupy.ndarray, not a chainer.Variable\n"
            "pass the Variable's .array as class_weight of softmax_cross_entropy")
    if class_weight.ndim != 1:
        # compat: Chainer's sentence first, which code may match.
        raise ValueError(
            "class_weight.ndim should be 1\nclass_weight of softmax_cross_entropy must be "
            f"1-dimensional (one weight per class), got ndim={class_weight.ndim}")
    if class_weight.dtype.kind != "f":
        # compat: Chainer's sentence first, which code may match.
        raise ValueError(
            "The dtype of class_weight should be 'f'\nclass_weight of softmax_cross_entropy "
            f"must have a float dtype, got {class_weight.dtype}")


def _check_input_values(x: Any, t: Any, ignore_label: int) -> None:
    """Debug-mode check that every label is a class index or ``ignore_label``."""
    x = variable.as_array(x)
    valid = ((0 <= t) & (t < x.shape[1])) | (t == ignore_label)
    if not valid.all():
        # compat: Chainer's sentence first, which code may match.
        raise ValueError(
            f"Each label `t` need to satisfy `0 <= t < x.shape[1] or t == {ignore_label}`\n"
            f"each label t of softmax_cross_entropy must satisfy 0 <= t < x.shape[1] "
            f"({x.shape[1]}) or t == ignore_label ({ignore_label}), got t={t}")


def _reduction_dtype(dtype: Any) -> Any:
    # float16 sums lose too much precision: accumulate them in float32, as Chainer does.
    return numpy.float32 if dtype == numpy.float16 else dtype


def _class_axis_shape(ndim: int) -> tuple[int, ...]:
    """Shape that puts a per-class vector on axis 1 of an ``ndim``-dimensional array."""
    return (1, -1) + (1,) * (ndim - 2)


def _array_module(x: Any) -> Any:
    return numpy if type(x) is _ndarray else backend.get_array_module(x)


def _softmax_parts(xp: Any, x: Any) -> tuple[Any, Any, Any, Any]:
    """Returns ``(max, x - max, exp(x - max), sum of exp)``, the reductions keeping axis 1."""
    peak = x.max(axis=1, keepdims=True)
    shifted = x - peak
    exp_shifted = xp.exp(shifted)
    total = sum_in_numpy1_order(exp_shifted, 1, keepdims=True)  # NOTE [NumPy 1 sum order]
    return peak, shifted, exp_shifted, total


# NOTE [Chainer's rounding]
# Off the fused CuPy kernels, the loss and its gradient round as Chainer's CPU code does, so a
# seeded run prints Chainer's losses to the last bit: the log-softmax is x - log_z with
# log_z = max + log(sum of exp(x - max)), and the softmax is exp(x - log_z) (not exp(x - max)
# divided by the sum, which is one exp cheaper and differs in the last bits).
def _log_normalizer(xp: Any, peak: Any, total: Any) -> Any:
    """``log_z``, the log of the sum of exp(x) along axis 1, rounded as Chainer rounds it."""
    if xp is not numpy:  # one launch: NOTE [fused CuPy kernels]
        return _cupy_kernels().log_normalizer(total, peak)
    log_z = xp.log(total)
    log_z += peak
    return log_z


def _softmax(xp: Any, x: Any) -> Any:
    peak, _, _, total = _softmax_parts(xp, x)
    return _softmax_from(xp, x, _log_normalizer(xp, peak, total))


def _softmax_from(xp: Any, x: Any, log_z: Any) -> Any:
    """exp(x - log_z), in one new array (NOTE [Chainer's rounding])."""
    if xp is not numpy:  # one launch: NOTE [fused CuPy kernels]
        return _cupy_kernels().softmax(x, log_z)
    y = x - log_z
    xp.exp(y, out=y)
    return y


def _labels(xp: Any, t: Any, ignore_label: int) -> tuple[Any, Any]:
    """Returns labels safe to index with (ignored ones replaced by 0) and the mask of the
    labels that are not ignored, or None when none is (checked on NumPy only, where it is
    cheap and saves the masking work)."""
    valid = t != ignore_label
    if xp is numpy and valid.all():
        return t, None
    return xp.where(valid, t, 0), valid


def _expand_class_axis(array: Any) -> Any:
    """Inserts a singleton axis 1, where the classes of ``x`` are."""
    return array.reshape(array.shape[:1] + (1,) + array.shape[1:])


def _pick_classes(xp: Any, array: Any, labels: Any) -> Any:
    """Returns ``array[n, labels[n, ...], ...]``: one class per label position (a new array)."""
    if array.ndim == 2:
        return array[xp.arange(len(labels)), labels]
    return xp.take_along_axis(array, _expand_class_axis(labels), axis=1).reshape(labels.shape)


def _subtract_one_at_classes(xp: Any, array: Any, labels: Any) -> None:
    """Subtracts 1 from ``array[n, labels[n, ...], ...]`` in place (``array`` C-contiguous)."""
    count = len(labels)
    if array.ndim == 2:
        array[xp.arange(count), labels] -= 1
        return
    view = array.reshape(count, array.shape[1], -1)  # a view, as array is C-contiguous
    units = view.shape[2]
    view[xp.arange(count)[:, None], labels.reshape(count, units),
         xp.arange(units)[None, :]] -= 1


# NOTE [fused CuPy kernels]
# On CuPy every array operation is a kernel launch that costs the host about 9 us whatever the
# array's size (H200, CuPy 14.2), and fancy indexing several launches: the label picking and the
# subtraction of the one-hot labels took about 130 us each, and the loss as array expressions
# about 480 us forward and 350 us backward for a 128 x 10 batch. So on CuPy log_z and the
# softmax exp(x - log_z) are one elementwise kernel each; and for integer labels without
# class_weight and with reduce='mean', one elementwise kernel picks, masks and counts the labels
# and another scales the two sums, and the gradient is one elementwise kernel. Each kernel does
# the arithmetic of NOTE [Chainer's rounding] in the array expressions' order and precision, so
# the values are the same, but for two details: an ignored label's gradient is +0 where the
# expressions' multiplication by the mask may give -0 (Chainer's CUDA kernel writes +0 too),
# and the scale gloss * coeff stays in float32 for float16 inputs where the expressions round
# it to float16 when coeff is a Python float (normalize=False). A label out of range gives NaN
# instead of an out-of-bounds read. Every other case takes the array expressions for the
# picking, the mean and the gradient; NumPy takes them for everything. (exp(x - max) / sum
# would save a launch when no softmax is cached, but differs in the last two bits.)
class _CupyKernels(NamedTuple):
    log_normalizer: Any  # (total, peak) -> log(total) + peak
    softmax: Any  # (x, log_z) -> exp(x - log_z)
    pick: Any  # (t, x, log_z, n_class, rest, ignore_label) -> (log_p, valid)
    mean: Any  # (sum of log_p, count) -> (loss, coeff)
    gradient: Any  # (y, t, gloss, coeff, n_class, rest, ignore_label) -> gx


@functools.cache
def _cupy_kernels() -> _CupyKernels:
    """The kernels of NOTE [fused CuPy kernels], compiled on first use."""
    cupy = sys.modules["cupy"]  # reached with CuPy arrays only
    log_normalizer = cupy.ElementwiseKernel(
        "T total, T peak", "T log_z", "log_z = T(log(total)) + peak",
        "chainer_compat_softmax_cross_entropy_log_z")
    softmax = cupy.ElementwiseKernel(
        "T x, T log_z", "T y", "y = exp(T(x - log_z))",
        "chainer_compat_softmax_cross_entropy_softmax")
    pick = cupy.ElementwiseKernel(
        "S t, raw T x, raw T log_z, int32 n_class, int32 rest, S ignore_label",
        "T log_p, T valid",
        """
        if (t == ignore_label) {
            log_p = T(0.0f);
            valid = T(0.0f);
        } else if (t < 0 || t >= n_class) {
            log_p = T(__int_as_float(0x7fc00000));  // NaN: never read out of bounds
            valid = T(1.0f);
        } else {
            const ptrdiff_t sample = i / rest, unit = i % rest;
            log_p = x[(sample * n_class + t) * rest + unit] - log_z[i];
            valid = T(1.0f);
        }
        """,
        "chainer_compat_softmax_cross_entropy_pick")
    mean = cupy.ElementwiseKernel(
        "F total, F count", "T loss, F coeff",
        "coeff = F(1.0f) / (count > F(1.0f) ? count : F(1.0f)); loss = T(total * -coeff);",
        "chainer_compat_softmax_cross_entropy_mean")
    gradient = cupy.ElementwiseKernel(
        "T y, raw S t, T gloss, F coeff, int32 n_class, int32 rest, S ignore_label",
        "T gx",
        """
        const ptrdiff_t unit = i % rest, klass = (i / rest) % n_class;
        const S label = t[(i / ((ptrdiff_t)rest * n_class)) * rest + unit];
        if (label == ignore_label) {
            gx = T(0.0f);
        } else {
            gx = T(F(T(y - T(klass == label ? 1.0f : 0.0f))) * (F(gloss) * coeff));
        }
        """,
        "chainer_compat_softmax_cross_entropy_grad")
    return _CupyKernels(log_normalizer, softmax, pick, mean, gradient)


def _units(x: Any) -> int:
    """Elements per sample and class: the product of the axes after the class axis."""
    return utils.size_of_shape(x.shape[2:])


class SoftmaxCrossEntropy(FunctionNode):
    """Softmax followed by cross entropy; differentiable once, with respect to ``x`` only.

    Use :func:`softmax_cross_entropy`.
    """

    # compat: class-level defaults, read by instances unpickled from older versions.
    normalize = True
    y = None
    _coeff: Any = None
    soft_target = False
    eps = 1e-7

    def __init__(self, normalize: bool = True, cache_score: bool = True,
                 class_weight: Any = None, ignore_label: int = -1, reduce: str = "mean",
                 soft_target_loss: str = "cross-entropy") -> None:
        self.normalize = normalize
        self.cache_score = cache_score
        if class_weight is not None:
            _check_class_weight_option(class_weight)
        self.class_weight = class_weight
        self.ignore_label = ignore_label
        if reduce != "mean":
            check_reduce(reduce, ("mean", "no"), "softmax_cross_entropy")
        self.reduce = reduce
        self.soft_target_loss = soft_target_loss

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        if type_check.eval(t_type.dtype.kind) == "i":
            type_check.expect(
                x_type.dtype.kind == "f",
                t_type.dtype.kind == "i",
                t_type.ndim == x_type.ndim - 1,
                x_type.shape[0] == t_type.shape[0],
                x_type.shape[2:] == t_type.shape[1:],
            )
        else:
            # A float t holds soft targets: one distribution over the classes per sample.
            type_check.expect(
                x_type.dtype.kind == "f",
                t_type.dtype.kind == "f",
                x_type.shape == t_type.shape,
            )

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        # The common case (integer labels), checked without building expressions.
        if len(in_data) == 2:
            x, t = in_data
            if (x.dtype.kind == "f" and t.dtype.kind == "i" and x.ndim >= 2
                    and t.ndim == x.ndim - 1 and x.shape[0] == t.shape[0]
                    and x.shape[2:] == t.shape[1:]):
                return
        super()._check_data_type_forward(in_data)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = _array_module(x)
        if x.ndim == t.ndim and x.shape == t.shape:
            self.soft_target = True
        if thread_flags.flags.debug and not self.soft_target:  # NOTE [fast flags] (configuration)
            _check_input_values(x, t, self.ignore_label)
        if self.class_weight is not None and not self.soft_target:
            _check_class_weight_length(self.class_weight, x)
        if x.size == 0:
            return self._forward_empty(xp, x, t)

        peak, shifted, exp_shifted, total = _softmax_parts(xp, x)
        del shifted, exp_shifted
        log_z = _log_normalizer(xp, peak, total)  # NOTE [Chainer's rounding]
        # The cached softmax costs a pass over x; without backprop no backward will read it
        # (a backward that finds none recomputes the same values).
        if self.cache_score and thread_flags.flags.enable_backprop:
            self.y = _softmax_from(xp, x, log_z)
        if (xp is not numpy and self.class_weight is None and self.reduce == "mean"
                and not self.soft_target):
            return self._fused_mean_loss(xp, x, t, log_z)
        if self.soft_target:
            return self._soft_target_loss(xp, x, t, x - log_z)

        labels, valid = _labels(xp, t, self.ignore_label)
        # log_softmax(x) at the labels, computed only where it is read.
        log_p = _pick_classes(xp, x, labels)
        log_p -= log_z.reshape(t.shape)
        if self.class_weight is not None:
            log_p *= _per_class(xp, self.class_weight, x)[labels]
        if valid is not None:
            log_p *= valid

        if self.reduce == "no":
            return utils.force_array(-log_p, x.dtype),
        if not self.normalize:
            self._coeff = 1.0 / max(len(x), 1)
        elif valid is None:
            self._coeff = 1.0 / max(t.size, 1)
        elif xp is numpy:
            self._coeff = 1.0 / max(int(valid.sum()), 1)
        else:
            # Keep the count on the device: reading it would synchronize.
            count = valid.sum(dtype=_reduction_dtype(x.dtype))
            self._coeff = 1.0 / xp.maximum(count, 1)
        # compat: summed in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        loss = sum_in_numpy1_order(log_p, dtype=_reduction_dtype(x.dtype)) * -self._coeff
        return utils.force_array(loss, x.dtype).reshape(()),

    def _fused_mean_loss(self, xp: Any, x: Any, t: Any, log_z: Any) -> tuple[Any, ...]:
        """The mean loss on CuPy in two kernels: NOTE [fused CuPy kernels]."""
        kernels = _cupy_kernels()
        log_p, valid = kernels.pick(t, xp.ascontiguousarray(x).ravel(), log_z.ravel(),
                                    x.shape[1], _units(x), self.ignore_label)
        dtype = _reduction_dtype(x.dtype)
        count = valid.sum(dtype=dtype) if self.normalize else numpy.dtype(dtype).type(len(x))
        loss = xp.empty((), x.dtype)
        self._coeff = xp.empty((), dtype)
        kernels.mean(log_p.sum(dtype=dtype), count, loss, self._coeff)
        return loss,

    def _forward_empty(self, xp: Any, x: Any, t: Any) -> tuple[Any, ...]:
        if self.cache_score:
            self.y = xp.zeros_like(x)
        loss_shape = t.shape[:1] + t.shape[2:] if self.soft_target else t.shape
        if self.reduce == "mean":
            self._coeff = 1.0
            return xp.zeros((), dtype=x.dtype),
        return xp.zeros(loss_shape, dtype=x.dtype),

    def _soft_target_loss(self, xp: Any, x: Any, t: Any, log_y: Any) -> tuple[Any, ...]:
        if self.soft_target_loss == "kl-divergence":
            loss = sum_in_numpy1_order(t * (xp.log(t + self.eps) - log_y), 1)
        else:
            loss = -sum_in_numpy1_order(t * log_y, 1)
        if self.reduce == "mean":
            # compat: soft targets are averaged over samples; normalize is not consulted.
            self._coeff = 1.0 / (x.size / x.shape[1])
            # compat: summed in x's dtype (float16 too: rounded before the scaling, and the
            # scale rounded to float16), unlike the labels' mean, as Chainer does.
            loss = sum_in_numpy1_order(loss) * self._coeff
            return utils.force_array(loss, x.dtype).reshape(()),
        return utils.force_array(loss, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # With the softmax cached, backward uses x only for its shape, dtype and device, as
        # Chainer's does: a write into x after forward is not reported (der-network writes).
        x, t = self._get_retained_inputs_reading((1,) if self.y is not None else None)
        gloss, = grad_outputs
        if _may_skip_gradient_nodes(gloss):
            # What the gradient node would output: NOTE [gradients without a node].
            gx_array = _gradient(x._array, t._array, gloss._array, self.y, self._coeff,
                                 self.ignore_label, self.class_weight, self.soft_target)
            requires_grad = (x._node._requires_grad or t._node._requires_grad
                             or gloss._node._requires_grad)
            return _new_unlinked_variable(gx_array, requires_grad), None
        grad = _SoftmaxCrossEntropyGrad_NoDoubleBackprop(
            self.ignore_label, self.class_weight, self.y, self._coeff, self.soft_target)
        gx, = grad.apply((x, t, gloss))
        return gx, None


class _SoftmaxCrossEntropyGrad_NoDoubleBackprop(FunctionNode):
    """The gradient of :class:`SoftmaxCrossEntropy` with respect to ``x``; not differentiable.

    Inputs are ``x``, ``t`` and the gradient of the loss.
    """

    def __init__(self, ignore_label: int, class_weight: Any, y: Any, coeff: Any,
                 soft_target: bool) -> None:
        self.ignore_label = ignore_label
        self.class_weight = class_weight
        self.y = y
        self.coeff = coeff
        self.soft_target = soft_target

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t, gloss = inputs
        return _gradient(x, t, gloss, self.y, self.coeff, self.ignore_label, self.class_weight,
                         self.soft_target),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # compat: Chainer's wording.
        raise RuntimeError(
            "F.softmax_cross_entropy was called with 'enable_double_backprop=False' argument, "
            "but double-backprop is actually being performed. Please specify "
            "'enable_double_backprop=True' explicitly.")


def _gradient(x: Any, t: Any, gloss: Any, y: Any, coeff: Any, ignore_label: int,
              class_weight: Any, soft_target: bool) -> Any:
    """The gradient of the loss with respect to ``x`` (arrays in, an array of x's dtype out).

    Args:
        x, t: The inputs of :class:`SoftmaxCrossEntropy`.
        gloss: The gradient of the loss.
        y: The softmax cached by forward, or None to recompute it.
        coeff: The scale of a reduced loss (``_coeff``), or None for ``reduce='no'``.
        ignore_label, class_weight, soft_target: As in :class:`SoftmaxCrossEntropy`.
    """
    xp = _array_module(x)
    if x.size == 0:
        return xp.zeros_like(x)
    if xp is not numpy and coeff is not None and class_weight is None and not soft_target:
        # NOTE [fused CuPy kernels]
        if y is None:
            y = _softmax(xp, x)
        if not backend.is_cupy_array(coeff):
            # A 0-d array, not a scalar: CuPy binds the kernel's F from arrays only.
            coeff = xp.asarray(coeff, _reduction_dtype(x.dtype))
        return _cupy_kernels().gradient(y, t.ravel(), gloss, coeff, x.shape[1], _units(x),
                                        ignore_label)
    # The cached softmax may be read by a later backward again: work on a copy. The scalings
    # are separate products, in Chainer's order, for Chainer's rounding (NOTE [Chainer's
    # rounding]); each is in place, so gx keeps x's dtype.
    gx = y.copy() if y is not None else _softmax(xp, x)
    if soft_target:
        gx -= t
    else:
        labels, valid = _labels(xp, t, ignore_label)
        _subtract_one_at_classes(xp, gx, labels)
        if class_weight is not None:
            gx *= _expand_class_axis(_per_class(xp, class_weight, x)[labels])
        if valid is not None:
            gx *= _expand_class_axis(valid)
    if coeff is None:
        gx *= _expand_class_axis(gloss)
    elif isinstance(coeff, float) and xp is numpy:
        # compat: Chainer (on NumPy 1) scales by gloss * coeff computed in float64 and rounded
        # once to x's dtype; NumPy 2 would round coeff first.
        gx *= x.dtype.type(float(gloss) * coeff)
    else:
        gx *= gloss * coeff  # coeff counted on the device
    return utils.force_array(gx, x.dtype)


def _check_class_weight_length(class_weight: Any, x: Any) -> None:
    # compat: as Chainer broadcasts the weights over x, one weight serves every class, and any
    # other length is a ValueError. Soft targets ignore class_weight, in Chainer too.
    if class_weight.shape[0] not in (1, x.shape[1]):
        raise ValueError(
            f"class_weight of softmax_cross_entropy must hold one weight per class "
            f"({x.shape[1]}), or one for all, got shape {class_weight.shape}")


def _per_class(xp: Any, class_weight: Any, x: Any) -> Any:
    """``class_weight`` as one weight per class of ``x`` (a lone weight repeated, as a view)."""
    return xp.broadcast_to(xp.asarray(class_weight), (x.shape[1],))


# NOTE [the double-backprop graph]
# With enable_double_backprop=True the loss is a graph of differentiable functions, and it is
# Chainer's graph, node for node: -log_softmax(x), times the class weights broadcast to x's
# shape, the classes rolled to the last axis and flattened to rows, one entry per row picked by
# select_item (the labels clipped into range, so an ignored or out-of-range label picks a real
# entry), reshaped to t's shape and multiplied by the mask of the labels that are not ignored;
# for reduce='mean' divided by the count (float16 cast to float32 for that and the sum, and
# back) and summed. So FunctionHooks see Chainer's labels in forward, backward and double
# backward, the values, gradients and second-order gradients round as Chainer's do, and zeros
# keep Chainer's signs (an ignored label's loss is +0: a positive -log p times a 0 mask). A
# label out of range outside debug mode is clipped and counted, as in Chainer.
def _label_loss_graph(x: Any, t: Any, normalize: bool, class_weight: Any, ignore_label: int,
                      reduce: str) -> variable.Variable:
    """The loss of integer labels as the differentiable graph of NOTE [the double-backprop
    graph] (``t`` an array)."""
    from chainer_compat.functions.activation.log_softmax import log_softmax
    from chainer_compat.functions.array.broadcast import broadcast_to
    from chainer_compat.functions.array.cast import cast
    from chainer_compat.functions.array.reshape import reshape
    from chainer_compat.functions.array.rollaxis import rollaxis
    from chainer_compat.functions.array.select_item import select_item
    from chainer_compat.functions.math.sum import sum as _sum

    dtype = x.dtype
    loss = -log_softmax(x)
    if class_weight is not None:
        # compat: Chainer rejects weights of another dtype than x (in the product's type
        # check); they are cast here instead, as the single-backprop path accepts them.
        weights = class_weight.astype(dtype, copy=False).reshape(_class_axis_shape(x.ndim))
        loss = loss * broadcast_to(weights, x.shape)
    in_use = (t != ignore_label).astype(dtype)
    loss = rollaxis(loss, 1, loss.ndim)
    loss = reshape(loss, (-1, loss.shape[-1]))  # a node even for 2-d x, as (-1, C) != shape
    safe_t = t.clip(0, loss.shape[1] - 1)
    loss = select_item(loss, safe_t.ravel())
    loss = reshape(loss, t.shape)
    loss = loss * in_use
    if reduce == "no":
        return loss

    reduction_dtype = _reduction_dtype(dtype)
    # compat: the count's type is Chainer's: a scalar of the reduction dtype when normalizing
    # (a Python float 1.0 when nothing is counted), else the batch size as an int; the
    # division then rounds its reciprocal as Chainer's does.
    count = in_use.astype(reduction_dtype, copy=False).sum() if normalize else len(x)
    count = max(count, 1.0)
    if reduction_dtype == dtype:
        return _sum(loss / count)
    return cast(_sum(cast(loss, reduction_dtype) / count), dtype)


def _soft_target_loss_graph(x: Any, t: Any, reduce: str,
                            soft_target_loss: str) -> variable.Variable:
    """The loss of soft targets as a differentiable graph (``t`` an array).

    compat: Chainer's double-backprop graph takes integer labels only (soft targets fail its
    select_item's type check); this graph is ours.
    """
    from chainer_compat.functions.activation.log_softmax import log_softmax
    from chainer_compat.functions.math.sum import sum as _sum

    x_array = x.array
    xp = backend.get_array_module(x_array)
    loss = -_sum(log_softmax(x) * t, axis=1)
    if soft_target_loss == "kl-divergence":
        loss = loss + sum_in_numpy1_order(
            t * xp.log(t + SoftmaxCrossEntropy.eps), 1).astype(x_array.dtype)
    if reduce == "mean":
        loss = _sum(loss * (1.0 / (x_array.size / x_array.shape[1])))
    return loss


def _double_backward_softmax_cross_entropy(
        x: Any, t: Any, normalize: bool, class_weight: Any, ignore_label: int, reduce: str,
        soft_target_loss: str) -> variable.Variable:
    _check_class_weight_option(class_weight)
    check_reduce(reduce, ("mean", "no"), "softmax_cross_entropy")
    x = variable.as_variable(x)
    t = variable.as_array(t)
    x_array = x.array
    if config.type_check:
        # compat: checked up front, so a mismatch names SoftmaxCrossEntropy whichever path
        # is taken (Chainer's graph fails later, in one of its functions).
        SoftmaxCrossEntropy()._check_data_type_forward((x_array, t))
    soft_target = x_array.ndim == t.ndim and x_array.shape == t.shape
    if config.debug and not soft_target:
        _check_input_values(x_array, t, ignore_label)
    if soft_target:
        return _soft_target_loss_graph(x, t, reduce, soft_target_loss)
    if class_weight is not None:
        _check_class_weight_length(class_weight, x_array)
    return _label_loss_graph(x, t, normalize, class_weight, ignore_label, reduce)


def softmax_cross_entropy(
        x: Any, t: Any, normalize: bool = True, cache_score: bool = True,
        class_weight: Any = None, ignore_label: int = -1, reduce: str = "mean",
        enable_double_backprop: bool = False,
        soft_target_loss: str = "cross-entropy") -> variable.Variable:
    """Cross entropy between ``softmax(x)`` (along axis 1) and the labels ``t``.

    Args:
        x: Unnormalized log-probabilities of shape ``(N, C, ...)``: axis 1 holds the classes;
            axes after it replicate the softmax (e.g. per pixel).
        t: Signed integer labels of shape ``(N, ...)``; samples labelled ``ignore_label``
            contribute nothing. A float ``t`` of ``x``'s shape holds soft targets instead
            (probability distributions over the classes).
        normalize: With ``reduce='mean'``, divide by the number of labels that are not
            ignored (True) or by the batch size ``N`` (False).
        cache_score: Keep the softmax from forward for backward (faster, more memory).
        class_weight: Optional array of shape ``(C,)``; each log-probability is multiplied by
            the weight of its class.
        ignore_label: The label value to ignore.
        reduce: ``'mean'`` for a scalar loss, ``'no'`` for one loss per label (0 where
            ignored).
        enable_double_backprop: Use an implementation that can be differentiated twice
            (slower; the default one can be differentiated once).
        soft_target_loss: ``'cross-entropy'`` or ``'kl-divergence'``, for soft targets.

    Returns:
        The loss: shape ``()`` for ``reduce='mean'``, else ``t``'s shape (for soft targets,
        ``x``'s shape without axis 1). Only ``x`` receives a gradient.

    Raises:
        ValueError: On an invalid ``reduce``, ``soft_target_loss`` or ``class_weight``, or, in
            debug mode, on a label out of range.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
    """
    if soft_target_loss not in _SOFT_TARGET_LOSSES:
        # compat: Chainer's sentence first, which code may match.
        raise ValueError(
            "soft_target_loss must be 'cross-entropy' or 'kl-divergence'.\n"
            f"soft_target_loss of softmax_cross_entropy got {soft_target_loss!r}")
    if not enable_double_backprop:
        func = SoftmaxCrossEntropy(normalize, cache_score, class_weight, ignore_label, reduce,
                                   soft_target_loss)
        loss, = func.apply((x, t))
        return loss
    return _double_backward_softmax_cross_entropy(
        x, t, normalize, class_weight, ignore_label, reduce, soft_target_loss)
