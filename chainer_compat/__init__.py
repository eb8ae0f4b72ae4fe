"""chainer_compat: Chainer 7.8.1's define-by-run autograd, reimplemented for NumPy 2 and CuPy.

``import chainer_compat as chainer`` gives legacy code the names it uses.
"""

from chainer_compat import (
    _engine,
    autograd,
    backend,
    backends,
    configuration,
    cuda,
    function_hooks,
    functions,
    gradient_check,
    initializer,
    initializers,
    link,
    link_hooks,
    links,
    porting,
    serializers,
)
from chainer_compat._alias import install_as_chainer
from chainer_compat._engine import backward
from chainer_compat.backend import get_array_types, get_device, using_device
from chainer_compat.configuration import (
    DebugMode,
    config,
    force_backprop_mode,
    global_config,
    is_debug,
    no_backprop_mode,
    set_debug,
    using_config,
)
from chainer_compat.function import Function, FunctionAdapter
from chainer_compat.function_hook import FunctionHook, get_function_hooks
from chainer_compat.function_node import Fallback, FunctionNode, grad
from chainer_compat.link import Chain, ChainList, Link
from chainer_compat.link_hook import LinkHook
from chainer_compat.sequential import Sequential
from chainer_compat.variable import Parameter, Variable, VariableNode, as_array, as_variable

__version__ = "0.1.0"

__all__ = [
    "Chain", "ChainList", "DebugMode", "Fallback", "Function", "FunctionAdapter", "FunctionHook",
    "FunctionNode", "Link", "LinkHook", "Parameter", "Sequential", "Variable", "VariableNode",
    "as_array", "as_variable",
    "autograd", "backend", "backends", "backward", "config", "configuration", "cuda",
    "force_backprop_mode", "function_hooks", "functions", "get_array_types", "get_device",
    "get_function_hooks", "global_config", "grad", "gradient_check", "initializer",
    "initializers", "install_as_chainer", "is_debug", "link", "link_hooks", "links",
    "no_backprop_mode", "porting", "serializers", "set_debug", "using_config", "using_device",
]
