"""Stateless normalization functions: ``normalize``, ``layer_normalization``, LRN."""
