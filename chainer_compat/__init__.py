"""chainer_compat: Chainer 7.8.1's define-by-run autograd, reimplemented for NumPy 2 and CuPy.

``import chainer_compat as chainer`` gives legacy code the names it uses.
"""

from chainer_compat import (
    _backend,
    _engine,
    autograd,
    backend,
    backends,
    configuration,
    cuda,
    dataset,
    datasets,
    device_resident,
    distribution,
    distributions,
    function_hooks,
    functions,
    gradient_check,
    graph_optimizations,
    initializer,
    initializers,
    iterators,
    link,
    link_hooks,
    links,
    memory_layouts,
    optimizer,
    optimizer_hooks,
    optimizers,
    porting,
    reporter,
    serializer,
    serializers,
    training,
    types,
    warnings,
)
from chainer_compat._alias import install_as_chainer
from chainer_compat._engine import backward
from chainer_compat._numpy1_aliases import install_numpy1_aliases
from chainer_compat._runtime_info import print_runtime_info
from chainer_compat.backend import (
    get_array_types,
    get_cpu_array_types,
    get_device,
    is_arrays_compatible,
    using_device,
)
from chainer_compat.backends.cuda import should_use_cudnn, should_use_cudnn_tensor_core
from chainer_compat.configuration import (
    DebugMode,
    config,
    force_backprop_mode,
    get_dtype,
    global_config,
    is_debug,
    mixed16,
    no_backprop_mode,
    set_debug,
    using_config,
)
from chainer_compat.device_resident import DeviceResident
from chainer_compat.distribution import Distribution, cross_entropy, kl_divergence, register_kl
from chainer_compat.function import Function, FunctionAdapter
from chainer_compat.function_hook import FunctionHook, get_function_hooks
from chainer_compat.function_node import Fallback, FunctionNode, grad
from chainer_compat.functions.math import basic_math  # chainer.basic_math, as in Chainer
from chainer_compat.graph_optimizations.static_graph import static_graph
from chainer_compat.graph_optimizations.static_graph_utilities import static_code
from chainer_compat.initializer import Initializer
from chainer_compat.link import Chain, ChainList, Link
from chainer_compat.link_hook import LinkHook
from chainer_compat.link_hook import get_link_hooks as _get_link_hooks  # Chainer's private name
from chainer_compat.optimizer import GradientMethod, Optimizer, UpdateRule
from chainer_compat.reporter import (
    DictSummary,
    Reporter,
    Summary,
    get_current_reporter,
    report,
    report_scope,
)
from chainer_compat.sequential import Sequential
from chainer_compat.serializer import AbstractSerializer, Deserializer, Serializer
from chainer_compat.variable import Parameter, Variable, VariableNode, as_array, as_variable

# compat: legacy code compares ``chainer.__version__`` (``if chainer.__version__ >= '2'``), and
# under the alias this module is ``chainer``: it reports the Chainer release whose API it keeps.
__version__ = "7.8.1"
# chainer_compat's own release (the version pip knows).
compat_version = "0.1.0"

# Read by experimental features before they warn; legacy code sets it to silence them.
disable_experimental_feature_warning = False


def get_compute_mode() -> object:
    """Returns ``config.compute_mode`` (a ChainerX setting; always None here)."""
    return config.compute_mode


__all__ = [
    "AbstractSerializer", "Chain", "ChainList", "DebugMode", "Deserializer", "DeviceResident",
    "DictSummary", "Distribution", "Fallback", "Function", "FunctionAdapter", "FunctionHook",
    "FunctionNode", "GradientMethod", "Initializer", "Link", "LinkHook", "Optimizer", "Parameter",
    "Reporter", "Sequential", "Serializer", "Summary", "UpdateRule", "Variable", "VariableNode",
    "as_array", "as_variable", "autograd", "backend", "backends", "backward", "compat_version",
    "config", "configuration", "cross_entropy", "cuda", "dataset", "datasets", "device_resident",
    "disable_experimental_feature_warning", "distribution", "distributions", "force_backprop_mode",
    "function_hooks", "functions", "get_array_types", "get_compute_mode", "get_cpu_array_types",
    "get_current_reporter", "get_device", "get_dtype", "get_function_hooks", "global_config",
    "grad", "gradient_check", "graph_optimizations", "initializer", "initializers",
    "install_as_chainer", "install_numpy1_aliases", "is_arrays_compatible", "is_debug", "iterators",
    "kl_divergence", "link", "link_hooks", "links", "mixed16", "no_backprop_mode", "optimizer",
    "optimizer_hooks", "optimizers", "porting", "print_runtime_info", "register_kl", "report",
    "report_scope", "reporter", "serializer", "serializers", "set_debug", "should_use_cudnn",
    "should_use_cudnn_tensor_core", "static_code", "static_graph", "training", "using_config",
    "using_device", "warnings",
]
