"""``SpectralNormalization``: a link hook that divides a link's weight by its largest singular
value, estimated by power iteration, for the length of each forward call.

Layer 8: imports backend, configuration, functions, link_hook, links, utils, variable and the
shared ``_weight_swap`` base.
"""

from __future__ import annotations

import importlib
from typing import Any

from chainer_compat import backend, configuration, utils, variable
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.transpose import transpose
from chainer_compat.functions.math.matmul import matmul
from chainer_compat.link_hook import _ForwardPreprocessCallbackArgs
from chainer_compat.link_hooks._weight_swap import WeightSwapHook
from chainer_compat.utils._assertions import AssertValueError

__all__ = ["SpectralNormalization", "calculate_max_singular_value", "l2normalize",
           "update_approximate_vectors"]


def l2normalize(xp: Any, v: Any, eps: float) -> Any:
    """Divides a vector by its L2 norm plus ``eps``.

    Args:
        xp: The array module of ``v`` (:mod:`numpy` or :mod:`cupy`).
        v: The vector.
        eps: Added to the norm, so a zero vector stays finite.

    Returns:
        An array of ``v``'s shape.
    """
    return v / (xp.linalg.norm(v) + eps)


def update_approximate_vectors(weight_matrix: Any, u: Any, n_power_iteration: int,
                               eps: float) -> tuple[Any, Any]:
    """Refines the estimates of a matrix's first left and right singular vectors.

    Args:
        weight_matrix: The matrix, a Variable or an array of shape ``(out_size, in_size)``.
        u: The current estimate of the first left singular vector, of shape ``(out_size,)``.
        n_power_iteration: Steps of power iteration; must be positive.
        eps: Passed to :func:`l2normalize`.

    Returns:
        The refined ``u`` and the first right singular vector's estimate ``v``, arrays.

    Raises:
        ValueError: If ``n_power_iteration`` is not positive (Chainer fails with an
            ``UnboundLocalError`` there).
    """
    if n_power_iteration < 1:
        raise ValueError(f"n_power_iteration must be positive, got {n_power_iteration}")
    matrix = weight_matrix.array if isinstance(weight_matrix, variable.Variable) else weight_matrix
    xp = backend.get_array_module(matrix)
    for _ in range(n_power_iteration):
        v = l2normalize(xp, xp.dot(u, matrix), eps)
        u = l2normalize(xp, xp.dot(matrix, v), eps)
    return u, v


def calculate_max_singular_value(weight_matrix: Any, u: Any, v: Any) -> variable.Variable:
    """The largest singular value ``u^T W v`` of ``weight_matrix``, differentiable in it.

    Args:
        weight_matrix: A Variable or array of shape ``(out_size, in_size)``.
        u: Estimate of the first left singular vector, ``(out_size,)``.
        v: Estimate of the first right singular vector, ``(in_size,)``.

    Returns:
        A 0-dimensional Variable.
    """
    return matmul(matmul(u, weight_matrix), v)


def _is_deconvolution(link: Any) -> bool:
    """Whether ``link`` is a deconvolution, whose weight holds output channels on axis 1."""
    # Looked up by module so that a deconvolution link not yet written is simply not matched.
    for module_name, class_name in (("deconvolution_2d", "Deconvolution2D"),
                                    ("deconvolution_nd", "DeconvolutionND")):
        try:
            module = importlib.import_module(f"chainer_compat.links.connection.{module_name}")
        except ImportError:
            continue
        link_class = getattr(module, class_name, None)
        if link_class is not None and isinstance(link, link_class):
            return True
    return False


class SpectralNormalization(WeightSwapHook):
    """Link hook that replaces a link's weight ``W`` by ``W / sigma(W)`` during each forward call.

    ``sigma(W)`` is the largest singular value of ``W`` viewed as a matrix (axis 0, or axis 1 for
    deconvolutions, against all other axes), estimated with ``n_power_iteration`` steps of power
    iteration from a persistent vector ``u`` that the link keeps as ``<weight_name>_u``. In train
    mode (``chainer.config.train``) the refined ``u`` is written back, so the estimate improves
    call after call; in test mode it is left as it is. Register the hook with
    ``link.add_hook(SpectralNormalization())``; it cannot be used as a ``with`` block.

    Args:
        n_power_iteration: Power iteration steps per forward call; must be positive.
        eps: Added to vector norms before dividing by them.
        use_gamma: If True, the link gets a scalar parameter ``gamma``, initialized to the
            exact largest singular value of ``W``, and the weight becomes ``gamma * W / sigma``.
        factor: If given, ``sigma`` is divided by it (the weight is scaled by ``factor``).
        weight_name: Name of the link's weight parameter.
        name: Name to register the hook under; ``'SpectralNormalization'`` when None.

    Attributes:
        vector_name: Name of the persistent vector ``u`` on the link (``weight_name + '_u'``).
        axis: Axis of the weight that forms the matrix rows (1 for deconvolutions).
        v: The right singular vector estimate of the last forward call.

    Raises:
        ValueError: If ``n_power_iteration`` is not positive (also an ``AssertionError``, which
            is what Chainer raises).
    """

    name = "SpectralNormalization"

    def __init__(self, n_power_iteration: int = 1, eps: float = 1e-6, use_gamma: bool = False,
                 factor: float | None = None, weight_name: str = "W",
                 name: str | None = None) -> None:
        if n_power_iteration <= 0:
            # compat: a bare assert in Chainer (NOTE [bare asserts]).
            raise AssertValueError(
                f"n_power_iteration must be positive, got {n_power_iteration!r}")
        super().__init__(weight_name, name)
        self.n_power_iteration = n_power_iteration
        self.eps = eps
        self.use_gamma = use_gamma
        self.factor = factor
        self.vector_name = weight_name + "_u"
        self.axis = 0
        self.v: Any = None

    def added(self, link: Any) -> None:
        """Prepares ``u`` (and ``gamma``) now if the link's weight is already initialized.

        Raises:
            ValueError: If the link has no attribute ``weight_name``.
        """
        self._check_weight_exists(link)
        if _is_deconvolution(link):
            self.axis = 1
        if getattr(link, self.weight_name).array is not None:
            self._prepare_parameters(link)

    def deleted(self, link: Any) -> None:
        """Removes ``u`` (and ``gamma``) from the link."""
        # Tolerant of a link whose lazy weight never got initialized: nothing was added then.
        if self.vector_name in link.__dict__:
            delattr(link, self.vector_name)
        if self.use_gamma and "gamma" in link.__dict__:
            del link.gamma

    def forward_preprocess(self, args: _ForwardPreprocessCallbackArgs) -> None:
        link = args.link
        if not self._initialized:
            self._prepare_parameters(link, args.args[0] if args.args else None)
        self.original_weight = getattr(link, self.weight_name)
        setattr(link, self.weight_name, self.normalize_weight(link))

    def _prepare_parameters(self, link: Any, input_variable: Any = None) -> None:
        weight = getattr(link, self.weight_name)
        if weight.array is None and input_variable is not None:
            # compat: a lazy weight is sized from the input's axis 1, as in Chainer.
            link._initialize_params(input_variable.shape[1])
        if weight.shape[self.axis] == 0:
            raise ValueError(
                f"{self.weight_name}.shape[{self.axis}] must be positive, got "
                f"{weight.shape}")
        # compat: drawn from the array module's global RNG, so numpy.random.seed reproduces it.
        u = link.xp.random.normal(size=(weight.shape[self.axis],)).astype(weight.dtype)
        setattr(link, self.vector_name, u)
        link.register_persistent(self.vector_name)
        if self.use_gamma:
            singular_values = link.xp.linalg.svd(self.reshape_W(weight.array),
                                                 compute_uv=False)
            with link.init_scope():
                link.gamma = variable.Parameter(utils.force_array(singular_values[0]))
        self._initialized = True

    def normalize_weight(self, link: Any) -> variable.Variable:
        """Returns the link's weight divided by its estimated largest singular value.

        Refines ``u`` by power iteration (written back to the link in train mode only); while
        a forward is being recomputed, the ``u`` and ``v`` of the first pass are reused.
        """
        weight = getattr(link, self.weight_name)
        u = getattr(link, self.vector_name)
        matrix = self.reshape_W(weight)
        config = configuration.config
        if config.in_recomputing:
            v = self.v
        else:
            with backend.using_device(link.device):
                u, v = update_approximate_vectors(matrix, u, self.n_power_iteration, self.eps)
        sigma = calculate_max_singular_value(matrix, u, v)
        if self.factor is not None:
            sigma = sigma / self.factor
        if self.use_gamma:
            normalized = link.gamma * weight / sigma
        else:
            normalized = weight / sigma
        if not config.in_recomputing:
            self.v = v
            if config.train:
                backend.copyto(getattr(link, self.vector_name), u)
        return normalized

    def reshape_W(self, W: Any) -> Any:  # noqa: N802, N803 - Chainer's public name
        """Returns the weight as a matrix: ``axis`` first, the other axes flattened."""
        if self.axis != 0:
            order = [self.axis] + [i for i in range(W.ndim) if i != self.axis]
            W = transpose(W, order) if isinstance(W, variable.Variable) else W.transpose(order)
        if W.ndim == 2:
            return W
        shape = (W.shape[0], -1)
        return reshape(W, shape) if isinstance(W, variable.Variable) else W.reshape(shape)
