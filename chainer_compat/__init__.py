"""chainer_compat: Chainer 7.8.1's define-by-run autograd, reimplemented for NumPy 2 and CuPy.

``import chainer_compat as chainer`` gives legacy code the names it uses.
"""

from chainer_compat import configuration
from chainer_compat.configuration import (
    config, global_config, using_config, no_backprop_mode, force_backprop_mode, is_debug,
    set_debug, DebugMode,
)
from chainer_compat import backend, backends, cuda
from chainer_compat.backend import get_array_types, get_device, using_device
from chainer_compat.variable import Variable, VariableNode, Parameter, as_variable, as_array
from chainer_compat.function_hook import FunctionHook, get_function_hooks
from chainer_compat.function_node import FunctionNode, Fallback, grad
from chainer_compat import functions
from chainer_compat import initializer, initializers
from chainer_compat import function_hooks
from chainer_compat import _engine
from chainer_compat._engine import backward
from chainer_compat.function import Function, FunctionAdapter
from chainer_compat import autograd
from chainer_compat import gradient_check
from chainer_compat import link, serializers, porting
from chainer_compat.link import Link, Chain, ChainList
from chainer_compat._alias import install_as_chainer

__version__ = "0.1.0"
