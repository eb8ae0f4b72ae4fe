#!/usr/bin/env python
# -*- coding: utf-8 -*-
"""Three-arm spiral classifier, written the way a Chainer user wrote one in late 2017.

Nothing in this file knows about chainer_compat: it is Chainer v3-era code (``import chainer``,
an old-style ``Function`` with CPU and GPU code paths, a new-style ``FunctionNode``, a model made
of ``chainer.Parameter``s, plain ``Variable``s and a hand-written SGD loop). Run it unmodified:

    python -m chainer_compat examples/legacy_spiral_mlp.py

It generates its own data (no download), trains for 30 epochs (a few seconds on two CPU cores),
prints the loss per epoch, checks that the held-out accuracy reaches 95% (exit status 1 if not),
and writes the computational graph of the loss to result/graph.dot (and result/graph.png when
Graphviz's ``dot`` is installed). ``--gpu 0`` runs it on a CUDA device with CuPy.
"""
from __future__ import division
from __future__ import print_function

import argparse
import os
import shutil
import subprocess
import sys
import time

import numpy as np

import chainer
from chainer import computational_graph
from chainer import cuda
from chainer import Function
from chainer import FunctionNode
from chainer import Variable
import chainer.functions as F
from chainer.utils import type_check

TARGET_ACCURACY = 0.95


class LeakyReLU(Function):
    """Old-style Function: separate CPU and GPU code, the GPU side as a CUDA kernel."""

    def __init__(self, slope=0.1):
        self.slope = slope

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f')

    def forward_cpu(self, inputs):
        x, = inputs
        y = x.copy()
        y[x < 0] *= self.slope
        return y,

    def forward_gpu(self, inputs):
        x, = inputs
        y = cuda.elementwise(
            'T x, T slope', 'T y', 'y = x >= 0 ? x : x * slope',
            'legacy_leaky_relu_fwd')(x, x.dtype.type(self.slope))
        return y,

    def backward_cpu(self, inputs, grad_outputs):
        x, = inputs
        gy, = grad_outputs
        gx = gy.copy()
        gx[x < 0] *= self.slope
        return gx,

    def backward_gpu(self, inputs, grad_outputs):
        x, = inputs
        gy, = grad_outputs
        gx = cuda.elementwise(
            'T x, T gy, T slope', 'T gx', 'gx = x >= 0 ? gy : gy * slope',
            'legacy_leaky_relu_bwd')(x, gy, x.dtype.type(self.slope))
        return gx,


class SoftmaxCrossEntropy(FunctionNode):
    """New-style FunctionNode: mean softmax cross entropy of logits x and labels t."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        x_type, t_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            t_type.dtype.kind == 'i',
            x_type.ndim == 2,
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
        )

    def forward(self, inputs):
        xp = cuda.get_array_module(*inputs)
        x, t = inputs
        log_y = x - x.max(axis=1, keepdims=True)
        log_y -= xp.log(xp.exp(log_y).sum(axis=1, keepdims=True))
        self.y = xp.exp(log_y)
        self.retain_inputs((1,))
        loss = -log_y[xp.arange(len(t)), t].mean()
        return xp.asarray(loss, dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        t, = self.get_retained_inputs()
        gloss, = grad_outputs
        xp = cuda.get_array_module(self.y)
        gx = self.y.copy()
        gx[xp.arange(len(t.data)), t.data] -= 1
        gx /= len(t.data)
        return Variable(gx) * F.broadcast_to(gloss, gx.shape), None


def softmax_cross_entropy(x, t):
    return SoftmaxCrossEntropy().apply((x, t))[0]


def linear(x, W, b):
    return F.matmul(x, W) + F.broadcast_to(b, (x.shape[0], b.shape[0]))


class MLP(object):
    """Two hidden layers, parameters held as chainer.Parameter."""

    def __init__(self, n_in, n_hidden, n_out):
        he = chainer.initializers.HeNormal()
        self.W1 = chainer.Parameter(he, (n_in, n_hidden), name='W1')
        self.b1 = chainer.Parameter(0, (n_hidden,), name='b1')
        self.W2 = chainer.Parameter(he, (n_hidden, n_hidden), name='W2')
        self.b2 = chainer.Parameter(0, (n_hidden,), name='b2')
        self.W3 = chainer.Parameter(he, (n_hidden, n_out), name='W3')
        self.b3 = chainer.Parameter(0, (n_out,), name='b3')

    def params(self):
        return [self.W1, self.b1, self.W2, self.b2, self.W3, self.b3]

    def to_gpu(self, device=None):
        for param in self.params():
            param.to_gpu(device)

    def __call__(self, x):
        h = LeakyReLU()(linear(x, self.W1, self.b1))
        h = LeakyReLU()(linear(h, self.W2, self.b2))
        return linear(h, self.W3, self.b3)


def make_spiral(n_per_class, n_class=3, noise=0.3, seed=0):
    rng = np.random.RandomState(seed)
    xs, ts = [], []
    for k in range(n_class):
        r = np.linspace(0.05, 1.0, n_per_class)
        theta = (np.linspace(k * 4.0, (k + 1) * 4.0, n_per_class)
                 + rng.randn(n_per_class) * noise)
        xs.append(np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1))
        ts.append(np.full(n_per_class, k))
    x = np.concatenate(xs).astype(np.float32)
    t = np.concatenate(ts).astype(np.int32)
    order = rng.permutation(len(t))
    return x[order], t[order]


def progress_bar(done, total, width=30):
    filled = int(width * done / total)
    return '[' + '=' * filled + ' ' * (width - filled) + ']'


def main():
    parser = argparse.ArgumentParser(description='Chainer example: spiral MLP')
    parser.add_argument('--batchsize', '-b', type=int, default=32,
                        help='Number of points in each mini-batch')
    parser.add_argument('--epoch', '-e', type=int, default=30,
                        help='Number of sweeps over the training set')
    parser.add_argument('--gpu', '-g', type=int, default=-1,
                        help='GPU ID (negative value indicates CPU)')
    parser.add_argument('--lr', type=float, default=0.05,
                        help='Learning rate')
    parser.add_argument('--momentum', type=float, default=0.9,
                        help='Momentum of the SGD update')
    parser.add_argument('--unit', '-u', type=int, default=64,
                        help='Number of units in each hidden layer')
    parser.add_argument('--out', '-o', default='result',
                        help='Directory to output the graph')
    args = parser.parse_args()

    np.random.seed(0)
    x_all, t_all = make_spiral(400)
    n_train = len(t_all) * 3 // 4
    x_train, t_train = x_all[:n_train], t_all[:n_train]
    x_test, t_test = x_all[n_train:], t_all[n_train:]
    print('# train: {}, test: {}, unit: {}, minibatch: {}, epoch: {}'.format(
        n_train, len(t_test), args.unit, args.batchsize, args.epoch))

    model = MLP(2, args.unit, 3)
    xp = np
    if args.gpu >= 0:
        cuda.get_device_from_id(args.gpu).use()
        model.to_gpu()
        xp = cuda.cupy
    x_train, t_train = xp.asarray(x_train), xp.asarray(t_train)
    x_test, t_test = xp.asarray(x_test), xp.asarray(t_test)
    velocities = [xp.zeros_like(p.data) for p in model.params()]

    lr = args.lr
    start = time.time()
    for epoch in range(1, args.epoch + 1):
        if epoch > args.epoch * 2 // 3:
            lr = args.lr * 0.1  # anneal for the last third
        perm = np.random.permutation(n_train)
        sum_loss = 0.0
        for i in range(0, n_train, args.batchsize):
            index = perm[i:i + args.batchsize]
            x = Variable(x_train[index])
            t = Variable(t_train[index])
            loss = softmax_cross_entropy(model(x), t)
            for param in model.params():
                param.cleargrad()
            loss.backward()
            for param, v in zip(model.params(), velocities):
                v *= args.momentum
                v -= lr * param.grad
                param.data += v
            sum_loss += float(loss.data) * len(index)

        with chainer.using_config('train', False), chainer.no_backprop_mode():
            y = model(Variable(x_test))
        accuracy = float((y.data.argmax(axis=1) == t_test).mean())
        print('epoch {:3d}/{} {} loss {:.4f}  test accuracy {:.3f}'.format(
            epoch, args.epoch, progress_bar(epoch, args.epoch),
            sum_loss / n_train, accuracy))
        sys.stdout.flush()
    print('trained in {:.1f}s'.format(time.time() - start))

    # Dump the graph of the loss of one mini-batch.
    if not os.path.exists(args.out):
        os.makedirs(args.out)
    x = Variable(x_train[:args.batchsize], name='x')
    t = Variable(t_train[:args.batchsize], name='t')
    loss = softmax_cross_entropy(model(x), t)
    loss.name = 'loss'
    graph = computational_graph.build_computational_graph((loss,))
    dot_path = os.path.join(args.out, 'graph.dot')
    with open(dot_path, 'w') as o:
        o.write(graph.dump())
    print('graph written to {}'.format(dot_path))
    if shutil.which('dot'):
        png_path = os.path.join(args.out, 'graph.png')
        subprocess.check_call(['dot', '-Tpng', dot_path, '-o', png_path])
        print('graph rendered to {}'.format(png_path))

    if accuracy < TARGET_ACCURACY:
        print('FAILED: test accuracy {:.3f} is below the target {:.2f}'.format(
            accuracy, TARGET_ACCURACY))
        sys.exit(1)
    print('OK: test accuracy {:.3f} reaches the target {:.2f}'.format(
        accuracy, TARGET_ACCURACY))


if __name__ == '__main__':
    main()
