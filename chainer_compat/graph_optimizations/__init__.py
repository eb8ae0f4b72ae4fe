"""Chainer's static-subgraph decorators, run define-by-run (NOTE [static chains run define-by-run]).

Layer 8: imports its two modules (``static_graph`` imports the configuration and Link).
"""

from chainer_compat.graph_optimizations import static_graph_utilities
from chainer_compat.graph_optimizations.static_graph_utilities import static_code

__all__ = ["static_code", "static_graph_utilities"]
