"""Runs the n-step RNN functions and links of Chainer and of chainer_compat on the same seeded
inputs in one interpreter (so on one NumPy and BLAS) and prints, as JSON, how many outputs and
gradients were compared and the names of those whose bits differ.

Run it with an interpreter that has Chainer 7.8.1 and chainer_compat on its path:

    PYTHONPATH=. /path/to/chainer-venv/bin/python tests/data/n_step_rnn/cross_check.py
"""

from __future__ import annotations

import json
from typing import Any

import chainer
import numpy

import chainer_compat

IN_SIZE, OUT_SIZE = 7, 6
# name: (function, weights per layer and direction, has a cell state, two-directional, kwargs)
FUNCTIONS = {
    "lstm": ("n_step_lstm", 8, True, False, {}),
    "bilstm": ("n_step_bilstm", 8, True, True, {}),
    "gru": ("n_step_gru", 6, False, False, {}),
    "bigru": ("n_step_bigru", 6, False, True, {}),
    "rnn_tanh": ("n_step_rnn", 2, False, False, {"activation": "tanh"}),
    "rnn_relu": ("n_step_rnn", 2, False, False, {"activation": "relu"}),
    "birnn_tanh": ("n_step_birnn", 2, False, True, {"activation": "tanh"}),
    "birnn_relu": ("n_step_birnn", 2, False, True, {"activation": "relu"}),
}
LINKS = ["NStepLSTM", "NStepBiLSTM", "NStepGRU", "NStepBiGRU", "NStepRNNTanh", "NStepBiRNNReLU"]


def run_function(library: Any, name: str, n_layers: int, lengths: list[int], dtype: Any,
                 ratio: float, seed: int) -> dict[str, Any]:
    function_name, n_weights, has_cell, bi, kwargs = FUNCTIONS[name]
    rng = numpy.random.RandomState(seed)
    directions = 2 if bi else 1

    def variable(*shape: int) -> Any:
        return library.Variable(rng.standard_normal(shape).astype(dtype))

    xs = [variable(sum(length > time for length in lengths), IN_SIZE)
          for time in range(max(lengths))]
    hx = variable(n_layers * directions, len(lengths), OUT_SIZE)
    cx = variable(*hx.shape) if has_cell else None
    ws, bs = [], []
    for layer in range(n_layers):
        width = IN_SIZE if layer == 0 else OUT_SIZE * directions
        for _ in range(directions):
            ws.append([variable(OUT_SIZE, width if k < n_weights // 2 else OUT_SIZE)
                       for k in range(n_weights)])
            bs.append([variable(OUT_SIZE) for _ in range(n_weights)])
    function = getattr(library.functions, function_name)
    numpy.random.seed(seed)
    if has_cell:
        hy, cy, ys = function(n_layers, ratio, hx, cx, ws, bs, xs, **kwargs)
        outputs = [hy, cy, *ys]
    else:
        hy, ys = function(n_layers, ratio, hx, ws, bs, xs, **kwargs)
        outputs = [hy, *ys]
    library.backward(outputs, [variable(*y.shape) for y in outputs])
    arrays = {f"output {index}": y.array for index, y in enumerate(outputs)}
    arrays.update({f"grad of xs[{time}]": x.grad for time, x in enumerate(xs)})
    arrays["grad of hx"] = hx.grad
    if cx is not None:
        arrays["grad of cx"] = cx.grad
    for group, (w, b) in enumerate(zip(ws, bs)):
        for k in range(n_weights):
            arrays[f"grad of ws[{group}][{k}]"] = w[k].grad
            arrays[f"grad of bs[{group}][{k}]"] = b[k].grad
    return arrays


def run_link(library: Any, name: str, n_layers: int, given: bool, dtype: Any,
             seed: int) -> dict[str, Any]:
    numpy.random.seed(seed)  # the default initializers draw from the global generator
    with library.using_config("dtype", numpy.dtype(dtype)):
        link = getattr(library.links, name)(n_layers, IN_SIZE, OUT_SIZE, 0.0)
    rng = numpy.random.RandomState(seed)
    has_cell = "LSTM" in name
    xs = [library.Variable(rng.standard_normal((length, IN_SIZE)).astype(dtype))
          for length in (3, 5, 2, 5, 1)]
    shape = (n_layers * (2 if "Bi" in name else 1), len(xs), OUT_SIZE)
    states = [library.Variable(rng.standard_normal(shape).astype(dtype)) if given else None
              for _ in range(2 if has_cell else 1)]
    hy, *rest = link(*states, xs)
    outputs = [hy, *rest[:-1], *rest[-1]]
    library.backward(outputs, [library.Variable(rng.standard_normal(y.shape).astype(dtype))
                               for y in outputs])
    arrays = {f"output {index}": y.array for index, y in enumerate(outputs)}
    arrays.update({f"grad of xs[{index}]": x.grad for index, x in enumerate(xs)})
    if given:
        arrays.update({f"grad of state {index}": s.grad for index, s in enumerate(states)})
    arrays.update({f"grad of {path}": param.grad for path, param in sorted(link.namedparams())})
    return arrays


def cases() -> list[tuple[str, Any]]:
    """(label, runner taking the library) for every configuration compared."""
    result = []
    seed = 0
    for dtype in (numpy.float32, numpy.float64):
        dtype_name = numpy.dtype(dtype).name
        for name in FUNCTIONS:
            for n_layers in (1, 2):
                for lengths in ([5, 4, 4, 2, 1], [3, 3, 3]):
                    for ratio in ((0.0, 0.25) if n_layers == 2 else (0.0,)):
                        seed += 1
                        result.append((
                            f"{name} layers={n_layers} lengths={lengths} dropout={ratio} "
                            f"{dtype_name}",
                            lambda library, a=(name, n_layers, lengths, dtype, ratio, seed):
                                run_function(library, *a)))
        for name in LINKS:
            for n_layers in (1, 2):
                for given in (True, False):
                    seed += 1
                    result.append((
                        f"{name} layers={n_layers} states={'given' if given else 'None'} "
                        f"{dtype_name}",
                        lambda library, a=(name, n_layers, given, dtype, seed):
                            run_link(library, *a)))
    return result


def main() -> None:
    compared = 0
    different = []
    for label, runner in cases():
        expected, actual = runner(chainer), runner(chainer_compat)
        if list(expected) != list(actual):
            different.append(f"{label}: names differ")
            continue
        for key, wanted in expected.items():
            compared += 1
            value = actual[key]
            if (value.dtype, value.shape) != (wanted.dtype, wanted.shape) or (
                    value.tobytes() != wanted.tobytes()):
                different.append(f"{label}: {key}")
    print(json.dumps({"compared": compared, "different": different}))


if __name__ == "__main__":
    main()
