"""Evaluation functions (non-differentiable): ``accuracy``, ``binary_accuracy``, ``r2_score``."""
