"""Writes chainer781.pkl: every object of specs.SPECS pickled by Chainer, with what its probe
returns on Chainer's own unpickled copy.

Run it with an interpreter that has Chainer 7.8.1 (it needs NumPy < 2):

    /path/to/chainer-venv/bin/python tests/data/chainer_pickles/make.py [OUTPUT]
"""

from __future__ import annotations

import pathlib
import pickle
import sys
import warnings

import chainer
import numpy

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import specs  # noqa: E402 - found next to this script

if not chainer.__version__.startswith("7."):
    raise SystemExit(f"make.py must run on Chainer 7, got chainer {chainer.__version__}")
warnings.simplefilter("ignore")
entries = {}
for name, (build, probe) in specs.SPECS.items():
    numpy.random.seed(0)
    data = pickle.dumps(build(), protocol=4)
    numpy.random.seed(1)
    entries[name] = (data, probe(pickle.loads(data)))
default = pathlib.Path(__file__).resolve().parent / "chainer781.pkl"
output = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else default
with open(output, "wb") as file:
    pickle.dump({"chainer": chainer.__version__, "numpy": numpy.__version__,
                 "entries": entries}, file, protocol=4)
print(f"wrote {len(entries)} pickles to {output}")
