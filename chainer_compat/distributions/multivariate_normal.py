"""``MultivariateNormal``: the normal distribution over vectors, given by a Cholesky factor.

Layer 8: imports backend, distribution, function_node, functions and variable.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from chainer_compat import backend, distribution, function_node, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils
from chainer_compat.utils import argument

__all__ = ["MultivariateNormal"]

_ENTROPY_CONSTANT = 0.5 * math.log(2 * math.pi * math.e)
_LOG_PROB_CONSTANT = -0.5 * math.log(2 * math.pi)


class TriangularInverse(function_node.FunctionNode):
    """The inverse of a batch of lower-triangular matrices (shape ``(..., d, d)``).

    Only the lower triangle is read, and the gradient is kept on it.
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (matrix,) = inputs
        xp = backend.get_array_module(matrix)
        if matrix.size == 0:
            return (matrix.copy(),)
        identity = xp.broadcast_to(xp.eye(matrix.shape[-1], dtype=matrix.dtype), matrix.shape)
        # Only the triangle is read, as a triangular solve (Chainer's) reads it: whatever lies
        # outside it does not change the inverse, and gets no gradient.
        triangle = xp.where(self._kept(xp, matrix.shape), matrix, 0)
        return (xp.linalg.solve(triangle, identity).astype(matrix.dtype, copy=False),)

    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (grad,) = grad_outputs
        (inverse,) = self.get_retained_outputs()
        xp = backend.get_array_module(inverse)
        inverse_t = F.swapaxes(inverse, -1, -2)
        # d(L^-1) = -L^-1 dL L^-1, so the input gradient is -L^-T g L^-T.
        matrix_grad = -F.matmul(F.matmul(inverse_t, grad), inverse_t)
        kept = self._kept(xp, inverse.shape)
        return (F.where(kept, matrix_grad, xp.zeros(inverse.shape, inverse.dtype)),)

    def _kept(self, xp: Any, shape: tuple[int, ...]) -> Any:
        """Where the gradient is kept: the lower triangle of each matrix."""
        return xp.broadcast_to(xp.tril(xp.ones(shape[-2:], dtype=bool)), shape)


def _triangular_inverse(matrix: Any) -> variable.Variable:
    return TriangularInverse().apply((matrix,))[0]


class TriangularInv(TriangularInverse):
    """Chainer's node for the inverse of one float32 triangular matrix (shape ``(d, d)``).

    Args:
        lower: Whether the matrix is lower (True) or upper triangular; its gradient is kept
            on that triangle.

    ``MultivariateNormal`` uses :class:`TriangularInverse`, which also takes batches and any
    float dtype; this class keeps Chainer's constructor and type check for code that builds it.
    """

    def __init__(self, lower: bool) -> None:
        self._lower = lower

    def check_type_forward(self, in_types: Any) -> None:
        from chainer_compat.utils import type_check  # layer 2, on first use

        type_check._argname(in_types, ("a",))
        a_type, = in_types
        type_check.expect(a_type.dtype == numpy.float32, a_type.ndim == 2,
                          a_type.shape[0] == a_type.shape[1])

    def _kept(self, xp: Any, shape: tuple[int, ...]) -> Any:
        kept = super()._kept(xp, shape)
        return kept if self._lower else kept.T


def _triangular_inv(x: Any, lower: bool = True) -> variable.Variable:
    """Chainer's helper: the inverse of one triangular matrix (see :class:`TriangularInv`)."""
    return TriangularInv(lower).apply((x,))[0]


def _triangular_log_det(matrix: variable.Variable) -> variable.Variable:
    return F.sum(F.log(abs(F.diagonal(matrix, axis1=-2, axis2=-1))), axis=-1)


class MultivariateNormal(distribution.Distribution):
    """The multivariate normal with mean ``loc`` and covariance ``scale_tril @ scale_tril.T``.

    Args:
        loc: The mean, shape ``batch_shape + (d,)``.
        scale_tril: (keyword only, required) The lower-triangular Cholesky factor of the
            covariance, shape ``batch_shape + (d, d)``.

    Raises:
        ValueError: If ``scale_tril`` is not given.
    """

    def __init__(self, loc: Any, **kwargs: Any) -> None:
        super().__init__()
        scale_tril = None
        if kwargs:
            (scale_tril,) = argument.parse_kwargs(kwargs, ("scale_tril", scale_tril))
        if scale_tril is None:
            raise ValueError("MultivariateNormal must get `scale_tril`, got None; pass the "
                             "Cholesky factor of the covariance as scale_tril=")
        self._loc_input = loc
        self._scale_tril_input = scale_tril

    def __copy__(self) -> MultivariateNormal:
        return self._copy_to(MultivariateNormal(self.loc, scale_tril=self.scale_tril))  # type: ignore[return-value]

    @_cached_property
    def loc(self) -> variable.Variable:
        """The mean."""
        return variable.as_variable(self._loc_input)

    @_cached_property
    def scale_tril(self) -> variable.Variable:
        """The Cholesky factor of the covariance."""
        return variable.as_variable(self._scale_tril_input)

    @_cached_property
    def _logdet_scale(self) -> variable.Variable:
        return _triangular_log_det(self.scale_tril)

    @property
    def d(self) -> int:
        """The dimension of an event."""
        return self.scale_tril.shape[-1]

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.loc.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self.loc.shape[-1:]

    @_cached_property
    def entropy(self) -> variable.Variable:
        return self._logdet_scale + _ENTROPY_CONSTANT * self.d

    def log_prob(self, x: Any) -> variable.Variable:
        if not isinstance(x, variable.Variable):
            # compat: an array meets the parameters in their dtype, as Chainer's x - loc does.
            x = self.xp.asarray(x, dtype=self.loc.dtype)
        x = variable.as_variable(x)
        inverse = F.broadcast_to(_triangular_inverse(self.scale_tril), x.shape + (self.d,))
        whitened = F.matmul(inverse, F.expand_dims(x - F.broadcast_to(self.loc, x.shape), -1))
        squared_norm = F.sum(whitened ** 2, axis=(-2, -1))
        log_normalizer = _LOG_PROB_CONSTANT * self.d - self._logdet_scale
        return F.broadcast_to(log_normalizer, squared_norm.shape) - 0.5 * squared_norm

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.loc

    @property
    def covariance(self) -> variable.Variable:
        return F.matmul(self.scale_tril, F.swapaxes(self.scale_tril, -1, -2))

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"loc": self.loc, "scale_tril": self.scale_tril}

    @property
    def support(self) -> str:
        return "real"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``loc + scale_tril @ eps`` (reparameterized)."""
        xp = dutils._array_module(self.loc)
        # compat: Chainer rounds the noise to float32 whatever the parameters' dtype.
        eps = dutils._draw(xp, "standard_normal", numpy.float32, (n,) + self.loc.shape + (1,))
        eps = eps.astype(self.loc.dtype, copy=False)
        scale = F.broadcast_to(self.scale_tril, (n,) + self.scale_tril.shape)
        return self.loc + F.squeeze(F.matmul(scale, eps), axis=-1)


@distribution.register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariate_normal_multivariate_normal(
        dist1: MultivariateNormal, dist2: MultivariateNormal) -> variable.Variable:
    inverse2 = _triangular_inverse(dist2.scale_tril)
    trace = F.sum(F.matmul(inverse2, dist1.scale_tril) ** 2, axis=(-2, -1))
    mahalanobis = F.matmul(inverse2, F.expand_dims(dist1.loc - dist2.loc, -1))
    mahalanobis = F.sum(mahalanobis ** 2, axis=(-2, -1))
    return (dist2._logdet_scale - dist1._logdet_scale + 0.5 * trace + 0.5 * mahalanobis
            - 0.5 * dist1.d)
