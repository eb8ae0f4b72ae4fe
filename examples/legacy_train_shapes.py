#!/usr/bin/env python
"""Small CNN on generated images, written the way a Chainer user wrote a trainer script in 2018.

Nothing in this file knows about chainer_compat: it is Chainer v4-era code (``chainer.links``,
``chainer.optimizers``, ``chainer.iterators``, and a ``Trainer`` with the usual extensions).
Run it unmodified:

    python -m chainer_compat examples/legacy_train_shapes.py

It draws 16x16 images of four shapes (horizontal bar, vertical bar, diagonal, hollow square) with
noise, trains a two-layer CNN with batch normalization for a few epochs (seconds on two CPU
cores), prints Chainer's report table, writes result/log and snapshots, and checks that the
validation accuracy reaches 95% (exit status 1 if not). ``--seed`` (0 by default) seeds the
initial weights and the shuffling, so a run repeats; ``--resume result/snapshot_iter_N``
continues from a snapshot; ``--gpu 0`` runs it on a CUDA device with CuPy.
"""
from __future__ import print_function

import argparse
import json
import os
import sys

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

TARGET_ACCURACY = 0.95
SIZE = 16


def make_shapes(n, seed):
    """``n`` noisy 1x16x16 images of four shapes, and their labels 0-3."""
    rng = np.random.RandomState(seed)
    images = rng.normal(0, 0.3, (n, 1, SIZE, SIZE)).astype(np.float32)
    labels = rng.randint(0, 4, n).astype(np.int32)
    for image, label in zip(images[:, 0], labels):
        a, b = rng.randint(2, SIZE - 6, 2)
        length = rng.randint(5, 9)
        if label == 0:
            image[a, b:b + length] += 1
        elif label == 1:
            image[a:a + length, b] += 1
        elif label == 2:
            for k in range(length):
                image[a + k // 2 + k % 2, b + k // 2] += 1
        else:
            image[a, b:b + 5] += 1
            image[a + 4, b:b + 5] += 1
            image[a:a + 5, b] += 1
            image[a:a + 5, b + 4] += 1
    return chainer.datasets.TupleDataset(images, labels)


class CNN(chainer.Chain):

    def __init__(self, n_out=4):
        super(CNN, self).__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(None, 8, 3, pad=1)
            self.bn1 = L.BatchNormalization(8)
            self.conv2 = L.Convolution2D(8, 16, 3, pad=1)
            self.fc1 = L.Linear(None, 64)
            self.fc2 = L.Linear(64, n_out)

    def __call__(self, x):
        h = F.max_pooling_2d(F.relu(self.bn1(self.conv1(x))), 2)
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 2)
        h = F.dropout(F.relu(self.fc1(h)), ratio=0.2)
        return self.fc2(h)


def main():
    parser = argparse.ArgumentParser(description='Chainer example: shapes')
    parser.add_argument('--batchsize', '-b', type=int, default=50)
    parser.add_argument('--epoch', '-e', type=int, default=6)
    parser.add_argument('--gpu', '-g', type=int, default=-1)
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--resume', '-r', default='')
    parser.add_argument('--lr', type=float, default=0.05)
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the weights and the shuffling (the data are fixed)')
    args = parser.parse_args()

    np.random.seed(args.seed)  # the initial weights and the iterator's shuffling draw from it
    model = L.Classifier(CNN())
    if args.gpu >= 0:
        chainer.backends.cuda.get_device_from_id(args.gpu).use()
        model.to_gpu()

    optimizer = chainer.optimizers.MomentumSGD(lr=args.lr)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(1e-4))

    train = make_shapes(1500, seed=0)
    test = make_shapes(500, seed=1)
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False,
                                                 shuffle=False)

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=args.gpu)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=args.gpu))
    trainer.extend(extensions.ExponentialShift('lr', 0.7), trigger=(2, 'epoch'))
    trainer.extend(extensions.snapshot(), trigger=(args.epoch, 'epoch'))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.observe_lr())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss', 'main/accuracy',
         'validation/main/accuracy', 'lr']))
    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)
    trainer.run()

    with open(os.path.join(args.out, 'log')) as f:
        accuracy = json.load(f)[-1]['validation/main/accuracy']
    if accuracy < TARGET_ACCURACY:
        print('FAILED: validation accuracy %.3f is below the target %.2f'
              % (accuracy, TARGET_ACCURACY))
        return 1
    print('OK: validation accuracy %.3f reaches the target %.2f' % (accuracy, TARGET_ACCURACY))
    return 0


if __name__ == '__main__':
    sys.exit(main())
