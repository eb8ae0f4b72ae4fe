"""Array manipulation functions (``reshape``, ``concat``, ``get_item``, ...), as in Chainer."""
