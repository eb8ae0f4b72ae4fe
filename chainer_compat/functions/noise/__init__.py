"""Noise functions: ``dropout``, ``gaussian``, ``gumbel_softmax``."""
