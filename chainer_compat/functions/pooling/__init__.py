"""Pooling over 2-D planes: ``max_pooling_2d``, ``average_pooling_2d`` and ``unpooling_2d``."""
