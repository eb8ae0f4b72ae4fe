"""``chainer_compat.functions`` (``F``): the differentiable functions, at Chainer's paths."""

from chainer_compat.functions.array.broadcast import Broadcast, BroadcastTo, broadcast, broadcast_to
from chainer_compat.functions.array.get_item import GetItem, get_item
from chainer_compat.functions.array.reshape import Reshape, reshape
from chainer_compat.functions.array.transpose import Transpose, transpose
from chainer_compat.functions.math.basic_math import absolute, add
from chainer_compat.functions.math.exponential import Exp, Log, exp, log, log2, log10
from chainer_compat.functions.math.identity import Identity, identity
from chainer_compat.functions.math.matmul import MatMul, matmul
from chainer_compat.functions.math.sum import Sum, sum, sum_to

__all__ = [
    "Broadcast", "BroadcastTo", "Exp", "GetItem", "Identity", "Log", "MatMul", "Reshape", "Sum",
    "Transpose", "absolute", "add", "broadcast", "broadcast_to", "exp", "get_item",
    "identity", "log", "log2", "log10", "matmul", "reshape", "sum", "sum_to", "transpose",
]
