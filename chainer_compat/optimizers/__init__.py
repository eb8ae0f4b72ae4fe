"""``chainer_compat.optimizers``: the gradient methods, one module per algorithm family.

Layer 8: re-exports the optimizer classes (their update rules stay in their modules).
"""

from __future__ import annotations

from chainer_compat.optimizers.ada_delta import AdaDelta
from chainer_compat.optimizers.ada_grad import AdaGrad
from chainer_compat.optimizers.adam import AdaBound, Adam, AdamW, AMSBound, AMSGrad
from chainer_compat.optimizers.corrected_momentum_sgd import CorrectedMomentumSGD
from chainer_compat.optimizers.momentum_sgd import MomentumSGD
from chainer_compat.optimizers.msvag import MSVAG
from chainer_compat.optimizers.nesterov_ag import NesterovAG
from chainer_compat.optimizers.rmsprop import RMSprop
from chainer_compat.optimizers.rmsprop_graves import RMSpropGraves
from chainer_compat.optimizers.sgd import SGD
from chainer_compat.optimizers.smorms3 import SMORMS3

__all__ = [
    "MSVAG",
    "SGD",
    "SMORMS3",
    "AMSBound",
    "AMSGrad",
    "AdaBound",
    "AdaDelta",
    "AdaGrad",
    "Adam",
    "AdamW",
    "CorrectedMomentumSGD",
    "MomentumSGD",
    "NesterovAG",
    "RMSprop",
    "RMSpropGraves",
]
