"""Names that libraries built on Chainer (ChainerCV, chainer-chemistry, onnx-chainer) import or
read from it, beyond the documented API. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file
on Chainer itself.
"""

from __future__ import annotations

import collections.abc
import importlib
import io
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
utils = importlib.import_module(chainer.__name__ + ".utils")


def test_utils_collections_abc_is_the_standard_module():
    assert utils.collections_abc is collections.abc
    assert isinstance((1, 2), utils.collections_abc.Sequence)


def test_private_backend_module_holds_the_device_base_class():
    private = importlib.import_module(chainer.__name__ + "._backend")
    assert private.Device is chainer.backend.Device
    assert chainer._backend is private
    assert isinstance(chainer.get_device("@numpy"), private.Device)


def test_extensions_util_progress_bar_redraws_its_lines_in_place():
    util = importlib.import_module(chainer.__name__ + ".training.extensions.util")
    assert chainer.training.extensions.util is util

    class TwoLines(util.ProgressBar):
        def get_lines(self):
            return ["first\n", "second\n"]

    out = io.StringIO()
    bar = TwoLines(out=out)
    bar.update()
    assert out.getvalue() == "\x1b[Jfirst\nsecond\n\x1b[2A"
    bar.close()
    assert out.getvalue().endswith("\x1b[2A\x1b[J")
    iterations_per_second, epochs_per_second = bar.update_speed(10, 0.5)
    assert iterations_per_second == float("inf") and epochs_per_second == float("inf")


@pytest.mark.parametrize("pad_width, expected", [
    (1, [1, 1]),
    ((1, 2), [1, 2]),
    (((1, 2), (0, 1)), [[1, 2], [0, 1]]),
])
def test_pad_node_keeps_its_widths_as_pad_bw(pad_width, expected):
    x = chainer.Variable(numpy.zeros((2, 3), numpy.float32))
    node = F.pad(x, pad_width, "constant").creator
    assert node.pad_bw.tolist() == expected


def test_repeat_node_keeps_its_input():
    x = chainer.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    node = F.repeat(x, 2, 1).creator
    assert node.inputs[0].data is x.array


def test_n_step_lstm_private_step_helper_matches_the_link():
    n_step_lstm = importlib.import_module(chainer.__name__ + ".functions.rnn.n_step_lstm")
    links = importlib.import_module(chainer.__name__ + ".links")
    rng = numpy.random.RandomState(0)
    layer = links.NStepLSTM(1, 3, 4, 0.0)
    x = rng.standard_normal((2, 3)).astype(numpy.float32)
    h0 = rng.standard_normal((1, 2, 4)).astype(numpy.float32)
    c0 = rng.standard_normal((1, 2, 4)).astype(numpy.float32)
    hy, cy, _ = layer(h0, c0, [x[0:1], x[1:2]])
    h, c = n_step_lstm._lstm(x, h0[0], c0[0], layer.ws[0], layer.bs[0])
    numpy.testing.assert_allclose(h.array, hy.array[0], rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(c.array, cy.array[0], rtol=1e-5, atol=1e-6)


def test_variable_mean_is_a_differentiable_weighted_average():
    x = chainer.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    numpy.testing.assert_allclose(x.mean().array, 2.5)
    assert x.mean(axis=1, keepdims=True).shape == (2, 1)
    weights = numpy.array([1, 3], numpy.float32)
    weighted = x.mean(axis=0, weights=weights)
    numpy.testing.assert_allclose(weighted.array, numpy.average(x.array, 0, weights))
    F.sum(weighted).backward()
    numpy.testing.assert_allclose(x.grad, numpy.repeat([[0.25], [0.75]], 3, axis=1))


def test_variable_as_the_standard_layout_is_itself():
    x = chainer.Variable(numpy.zeros((2, 3), numpy.float32))
    assert x.as_layout(None) is x


def test_private_link_hook_table_registers_a_hook_for_every_link_call():
    # chainer-chemistry's saliency calculators register hooks by writing this table.
    calls = []

    class Records(chainer.LinkHook):
        name = "Records"

        def forward_preprocess(self, args):
            calls.append(type(args.link).__name__)

    hooks = chainer._get_link_hooks()
    hooks["probe"] = Records()
    try:
        chainer.links.Linear(2, 3)(numpy.zeros((1, 2), numpy.float32))
    finally:
        del hooks["probe"]
    assert calls == ["Linear"]
    assert "probe" not in chainer._get_link_hooks()


def test_private_padded_concatenation_pads_to_the_largest_shape():
    convert = importlib.import_module(chainer.__name__ + ".dataset.convert")
    batch = [numpy.ones((2,), numpy.int32), numpy.full((3,), 2, numpy.int32)]
    stacked = convert._concat_arrays_with_padding(batch, padding=-1)
    numpy.testing.assert_array_equal(stacked, [[1, 1, -1], [2, 2, 2]])


def test_vgg_module_keeps_its_private_two_by_two_pooling():
    # cvmodelz builds its VGG variants from this helper.
    vgg = importlib.import_module(chainer.__name__ + ".links.model.vision.vgg")
    x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    numpy.testing.assert_array_equal(vgg._max_pooling_2d(x).array, [[[[5, 7], [13, 15]]]])


def test_private_matmul_helpers_knmt_imports():
    matmul_module = importlib.import_module(chainer.__name__ + ".functions.math.matmul")
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    b = numpy.arange(6, dtype=numpy.float32).reshape(3, 2)
    numpy.testing.assert_array_equal(matmul_module._matmul(a, b), a @ b)
    numpy.testing.assert_array_equal(matmul_module._matmul(a, a, transb=True), a @ a.T)
    numpy.testing.assert_array_equal(matmul_module._matmul(a, b, transout=True), (a @ b).T)
    assert [matmul_module._get_check_index(trans, right)
            for trans in (False, True) for right in (False, True)] == [1, 0, 0, 1]


def test_private_lstm_gate_extraction():
    lstm_module = importlib.import_module(chainer.__name__ + ".functions.rnn.lstm")
    gates = lstm_module._extract_gates(numpy.arange(8.0).reshape(1, 8))
    assert [gate.tolist() for gate in gates] == [[[0.0, 4.0]], [[1.0, 5.0]], [[2.0, 6.0]],
                                                 [[3.0, 7.0]]]
