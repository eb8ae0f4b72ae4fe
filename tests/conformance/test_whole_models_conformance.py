"""Whole models train as on Chainer 7.8.1, to the bit: over three train steps from the same
parameters and seed, the losses of a WGAN-GP critic (convolutions, leaky ReLU and max pooling,
differentiated twice), a small ResNet (3 x 3 max pooling with padding, batch normalization, a
residual sum, global average pooling), word2vec's skip-gram with negative sampling or a
hierarchical softmax (embedding and table gradients scattered by rows), a seq2seq of
NStepLSTMs, Chainer's VAE example and benchmarks/models.py's CNN, DCGAN discriminator, LSTM
language model and MLP (dropout drawn from the same global generator) equal Chainer's.

Both interpreters run OpenBLAS's Prescott kernels: NumPy 2.4's OpenBLAS and the one NumPy 1.26
bundles pick different kernels for this CPU by themselves, and the VAE's first product
(``x.dot(W.T)``) then already differs. Runs where the Chainer 7.8.1 interpreter is set up.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

from tests.chainer_interpreter import CHAINER_PYTHON, last_json_line, require_both_interpreters

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "data" / "whole_models" / "train_steps.py"
MODELS = ["wgan_gp", "resnet", "negative_sampling", "hierarchical_softmax", "seq2seq", "vae",
          "cnn", "gan", "lstm", "mlp"]


def _losses(python, library):
    return last_json_line(python, [str(SCRIPT), library])


@pytest.fixture(scope="module")
def both():
    require_both_interpreters()
    return _losses(sys.executable, "chainer_compat"), _losses(CHAINER_PYTHON, "chainer")


@pytest.mark.parametrize("name", MODELS)
def test_models_train_to_chainers_losses_bit_for_bit(both, name):
    ours, chainers = both
    assert ours[name] == chainers[name]
    assert len(ours[name]) >= 3
