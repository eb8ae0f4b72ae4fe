"""Unit tests for chainer_compat.function_hooks.debug_print.PrintHook."""

from __future__ import annotations

import gc
import io
import threading
import weakref

import numpy
import pytest

import chainer_compat
from chainer_compat import FunctionNode, Variable
from chainer_compat.function_hooks import PrintHook


class Scale(FunctionNode):
    """y = 3x; keeps no input for backward."""

    @property
    def label(self):
        return "Scale by 3"

    def forward(self, inputs):
        return (inputs[0] * 3,)

    def backward(self, target_input_indexes, grad_outputs):
        return (Variable(grad_outputs[0].array * 3),)


class Product(FunctionNode):
    """y = a * b; keeps both inputs for backward."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        return (a * b,)

    def backward(self, target_input_indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        gy = grad_outputs[0].array
        return Variable(gy * b.array), Variable(gy * a.array)


class Halves(FunctionNode):
    """Splits a vector into its two halves (two outputs)."""

    def forward(self, inputs):
        x, = inputs
        middle = len(x) // 2
        return x[:middle].copy(), x[middle:].copy()

    def backward(self, target_input_indexes, grad_outputs):
        parts = [numpy.zeros(2, numpy.float32) if g is None else g.array for g in grad_outputs]
        return (Variable(numpy.concatenate(parts)),)


class CountingStream(io.StringIO):
    def __init__(self):
        super().__init__()
        self.flushes = 0

    def flush(self):
        self.flushes += 1
        super().flush()



def test_forward_prints_label_and_each_input():
    out = io.StringIO()
    a = Variable(numpy.full((2, 3), 2, numpy.float32), name="a")
    b = Variable(numpy.arange(4, dtype=numpy.float64))
    with PrintHook(file=out):
        Scale().apply((a,))
        Product().apply((b, b))
    text = out.getvalue()
    # The hook sees arrays, not Variables, so names are not shown (as in Chainer).
    assert text.startswith("function\tScale by 3\ninput data\n<variable at 0x")
    assert "function\tProduct\n" in text
    assert text.count("input data") == 2
    # One debug_print per input: Scale has one, Product two.
    assert text.count("- shape:") == 3
    assert "- shape: (2, 3)\n- dtype: float32\n- statistics: mean=2.00000000, std=0.00000000\n" \
        in text
    assert text.count("- dtype: float64") == 2
    assert "output gradient" not in text


def test_backward_prints_output_gradients_and_removed_inputs():
    x = Variable(numpy.ones((2, 2), numpy.float32))
    y, = Scale().apply((x,))
    y.grad = numpy.full((2, 2), 4, numpy.float32)
    out = io.StringIO()
    with PrintHook(file=out):
        y.backward()
    text = out.getvalue()
    assert text.startswith("function\tScale by 3\ninput data\n(removed)\noutput gradient\n")
    # The gradient is shown as the grad of a zero Variable of its shape.
    assert "- statistics: mean=0.00000000, std=0.00000000\n" \
           "- grad: mean=4.00000000, std=0.00000000" in text


def test_backward_prints_retained_inputs():
    a = Variable(numpy.full(3, 5, numpy.float32))
    b = Variable(numpy.full(3, 7, numpy.float32))
    y, = Product().apply((a, b))
    y.grad = numpy.ones(3, numpy.float32)
    out = io.StringIO()
    with PrintHook(file=out):
        y.backward()
    text = out.getvalue()
    assert "(removed)" not in text
    assert "mean=5.00000000" in text and "mean=7.00000000" in text
    assert text.index("input data") < text.index("output gradient")


def test_missing_output_gradient_prints_none():
    x = Variable(numpy.arange(4, dtype=numpy.float32))
    first, _ = Halves().apply((x,))
    first.grad = numpy.ones(2, numpy.float32)
    out = io.StringIO()
    with PrintHook(file=out):
        first.backward()
    after_header = out.getvalue().split("output gradient\n", 1)[1]
    assert after_header.count("<variable") == 1
    assert after_header.rstrip("\n").endswith("None")
    numpy.testing.assert_array_equal(x.grad, [1, 1, 0, 0])


def test_end_and_flush_are_honoured():
    out = CountingStream()
    with PrintHook(end="|", file=out, flush=True):
        Scale().apply((Variable(numpy.ones(1, numpy.float32)),))
    assert out.getvalue().startswith("function\tScale by 3|input data|<variable at ")
    assert "\n- shape: (1,)" in out.getvalue()  # debug_print's own lines stay newline-separated
    assert out.flushes == 1

    quiet = CountingStream()
    with PrintHook(file=quiet, flush=False):
        Scale().apply((Variable(numpy.ones(1, numpy.float32)),))
    assert quiet.flushes == 0
    assert quiet.getvalue()


def test_sep_is_deprecated_and_ignored():
    with pytest.warns(DeprecationWarning, match="sep"):
        hook = PrintHook(sep="--", file=io.StringIO())
    assert hook.sep == "--"
    with hook:
        Scale().apply((Variable(numpy.ones(1, numpy.float32)),))
    assert "--" not in hook.file.getvalue()


def test_local_hook_prints_only_its_function():
    out = io.StringIO()
    hooked = Scale()
    hooked.add_hook(PrintHook(file=out))
    y, = hooked.apply((Variable(numpy.ones(2, numpy.float32)),))
    Product().apply((y, y))
    assert out.getvalue().count("function\t") == 1
    assert "Product" not in out.getvalue()


def test_hook_keeps_no_graph_node_alive(no_gc):
    x = Variable(numpy.ones(3, numpy.float32))
    with PrintHook(file=io.StringIO()):
        y, = Product().apply((x, x))
        y.grad = numpy.ones(3, numpy.float32)
        y.backward()
        node_ref = weakref.ref(y.node)
        function_ref = weakref.ref(y.creator_node)
        del y
    assert gc.isenabled() is False
    assert node_ref() is None
    assert function_ref() is None


def test_hook_does_not_print_functions_of_another_thread():
    out = io.StringIO()
    x = Variable(numpy.ones(2, numpy.float32))
    thread = threading.Thread(target=lambda: Product().apply((x, x)))
    with PrintHook(file=out):
        thread.start()
        thread.join()
        Scale().apply((x,))
    assert out.getvalue().count("function\t") == 1
    assert "Product" not in out.getvalue()


def test_duplicate_name_raises_key_error():
    with PrintHook(file=io.StringIO()), pytest.raises(KeyError):
        PrintHook(file=io.StringIO()).__enter__()
    assert "PrintHook" not in chainer_compat.get_function_hooks()
