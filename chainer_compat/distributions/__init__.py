"""``chainer_compat.distributions`` (``D``): probability distributions at Chainer's module paths.

Layer 8: imports the distribution modules of this package. Importing it registers each pair's
KL divergence with :func:`chainer_compat.distribution.register_kl`.
"""

from chainer_compat.distributions import (
    bernoulli,
    beta,
    categorical,
    cauchy,
    chisquare,
    dirichlet,
    exponential,
    gamma,
    geometric,
    gumbel,
    independent,
    laplace,
    log_normal,
    multivariate_normal,
    normal,
    one_hot_categorical,
    pareto,
    poisson,
    uniform,
    utils,
)
from chainer_compat.distributions.bernoulli import Bernoulli
from chainer_compat.distributions.beta import Beta
from chainer_compat.distributions.categorical import Categorical
from chainer_compat.distributions.cauchy import Cauchy
from chainer_compat.distributions.chisquare import Chisquare
from chainer_compat.distributions.dirichlet import Dirichlet
from chainer_compat.distributions.exponential import Exponential
from chainer_compat.distributions.gamma import Gamma
from chainer_compat.distributions.geometric import Geometric
from chainer_compat.distributions.gumbel import Gumbel
from chainer_compat.distributions.independent import Independent
from chainer_compat.distributions.laplace import Laplace
from chainer_compat.distributions.log_normal import LogNormal
from chainer_compat.distributions.multivariate_normal import MultivariateNormal
from chainer_compat.distributions.normal import Normal
from chainer_compat.distributions.one_hot_categorical import OneHotCategorical
from chainer_compat.distributions.pareto import Pareto
from chainer_compat.distributions.poisson import Poisson
from chainer_compat.distributions.uniform import Uniform

__all__ = [
    "Bernoulli", "Beta", "Categorical", "Cauchy", "Chisquare", "Dirichlet", "Exponential",
    "Gamma", "Geometric", "Gumbel", "Independent", "LogNormal", "Laplace", "MultivariateNormal",
    "Normal", "OneHotCategorical", "Pareto", "Poisson", "Uniform",
    "bernoulli", "beta", "categorical", "cauchy", "chisquare", "dirichlet", "exponential",
    "gamma", "geometric", "gumbel", "independent", "laplace", "log_normal",
    "multivariate_normal", "normal", "one_hot_categorical", "pareto", "poisson", "uniform",
    "utils",
]
