"""Trainer extensions: logging, printing, evaluation, snapshots and hyperparameter schedules.

Layer 8.
"""

from __future__ import annotations

from chainer_compat.training.extensions import snapshot_writers
from chainer_compat.training.extensions import util as util  # chainer.training.extensions.util
from chainer_compat.training.extensions._snapshot import snapshot, snapshot_object
from chainer_compat.training.extensions.computational_graph import DumpGraph
from chainer_compat.training.extensions.evaluator import Evaluator
from chainer_compat.training.extensions.exponential_shift import ExponentialShift
from chainer_compat.training.extensions.fail_on_nonnumber import FailOnNonNumber
from chainer_compat.training.extensions.inverse_shift import InverseShift
from chainer_compat.training.extensions.linear_shift import LinearShift
from chainer_compat.training.extensions.log_report import LogReport
from chainer_compat.training.extensions.micro_average import MicroAverage
from chainer_compat.training.extensions.multistep_shift import MultistepShift
from chainer_compat.training.extensions.parameter_statistics import ParameterStatistics
from chainer_compat.training.extensions.plot_report import PlotReport
from chainer_compat.training.extensions.polynomial_shift import PolynomialShift
from chainer_compat.training.extensions.print_report import PrintReport
from chainer_compat.training.extensions.progress_bar import ProgressBar
from chainer_compat.training.extensions.step_shift import StepShift
from chainer_compat.training.extensions.value_observation import observe_lr, observe_value
from chainer_compat.training.extensions.variable_statistics_plot import VariableStatisticsPlot
from chainer_compat.training.extensions.variable_unchain import unchain_variables
from chainer_compat.training.extensions.warmup_shift import WarmupShift

dump_graph = DumpGraph  # compat: Chainer's alias

__all__ = ["DumpGraph", "Evaluator", "ExponentialShift", "FailOnNonNumber", "InverseShift",
           "LinearShift", "LogReport", "MicroAverage", "MultistepShift", "ParameterStatistics",
           "PlotReport", "PolynomialShift", "PrintReport", "ProgressBar", "StepShift",
           "VariableStatisticsPlot", "WarmupShift", "dump_graph", "observe_lr",
           "observe_value", "snapshot", "snapshot_object", "snapshot_writers",
           "unchain_variables"]
