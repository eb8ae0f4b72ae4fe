"""Whole models train as on Chainer 7.8.1. Equal to the bit: the losses of a WGAN-GP critic's
steps (convolutions, leaky ReLU and max pooling, differentiated twice), of a small ResNet's
(3 x 3 max pooling with padding, batch normalization, a residual sum, global average pooling),
of word2vec's skip-gram with negative sampling or a hierarchical softmax (embedding and table
gradients scattered by rows) and of a seq2seq of NStepLSTMs. Equal to BLAS rounding: those of
benchmarks/models.py's CNN, DCGAN discriminator, LSTM language model and MLP (dropout drawn
from the same global generator), and of the VAE example, whose first layer's product rounds
differently in NumPy 2.4's OpenBLAS than in NumPy 1.26's (``x.dot(W.T)`` itself differs).
Runs where the Chainer 7.8.1 interpreter is set up.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy
import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "data" / "whole_models" / "train_steps.py"
CHAINER_PYTHON = pathlib.Path("/tmp/chvenv/bin/python")


def _losses(python, library):
    environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    output = subprocess.run([str(python), str(SCRIPT), library], check=True,
                            capture_output=True, text=True, env=environment).stdout
    return json.loads(output.splitlines()[-1])


@pytest.fixture(scope="module")
def both():
    if not CHAINER_PYTHON.exists():
        pytest.skip(f"Chainer 7.8.1 interpreter not found at {CHAINER_PYTHON}")
    return _losses(sys.executable, "chainer_compat"), _losses(CHAINER_PYTHON, "chainer")


@pytest.mark.parametrize("name", ["wgan_gp", "resnet", "negative_sampling",
                                  "hierarchical_softmax", "seq2seq"])
def test_models_train_to_chainers_bits(both, name):
    ours, chainers = both
    assert ours[name] == chainers[name]


@pytest.mark.parametrize("name", ["cnn", "gan", "lstm", "mlp", "vae"])
def test_models_train_to_chainers_losses(both, name):
    ours, chainers = both
    numpy.testing.assert_allclose(ours[name], chainers[name], rtol=1e-6, atol=0)
