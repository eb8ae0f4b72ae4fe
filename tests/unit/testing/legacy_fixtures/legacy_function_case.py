"""Function and link tests written the way Chainer's own test suite writes them, run unchanged by
test_function_link.py in a pytest subprocess (``-m "not gpu"`` deselects the GPU cases).

Not collected by the suite itself (its name does not start with ``test_``).
"""

import unittest

import numpy

import chainer_compat as chainer
import chainer_compat.functions as F
from chainer_compat import function_node, gradient_check, link, testing, utils
from chainer_compat.backends import cuda
from chainer_compat.testing import attr


class Square(function_node.FunctionNode):

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return utils.force_array(x * x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return 2 * x * gy,


def square(x):
    return Square().apply((x,))[0]


@testing.parameterize(*testing.product({
    'shape': [(3, 2), ()],
    'dtype': [numpy.float32, numpy.float64],
}))
@testing.inject_backend_tests(
    None,
    # CPU tests
    [{}]
    # GPU tests
    + testing.product({
        'use_cuda': [True],
        'use_cudnn': ['never', 'always'],
    }))
class TestSquare(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == numpy.float32:
            self.check_forward_options.update({'atol': 1e-5, 'rtol': 1e-4})
            self.check_backward_options.update({'atol': 1e-3, 'rtol': 1e-3})
            self.check_double_backward_options.update({'atol': 1e-3, 'rtol': 1e-3})

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return x,

    def forward(self, inputs, device):
        x, = inputs
        return square(x),

    def forward_expected(self, inputs):
        x, = inputs
        return utils.force_array(x * x),


@testing.parameterize(*testing.product({
    'shape': [(3, 2), ()],
    'dtype': [numpy.float32, numpy.float64],
}))
class TestSquareOldStyle(unittest.TestCase):

    def setUp(self):
        self.x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        self.gy = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)

    def check_forward(self, x_data):
        y = square(chainer.Variable(x_data))
        testing.assert_allclose(cuda.to_cpu(y.data), self.x * self.x)

    def test_forward_cpu(self):
        self.check_forward(self.x)

    @attr.gpu
    def test_forward_gpu(self):
        self.check_forward(cuda.to_gpu(self.x))

    def check_backward(self, x_data, y_grad):
        gradient_check.check_backward(square, x_data, y_grad, dtype=numpy.float64)

    def test_backward_cpu(self):
        self.check_backward(self.x, self.gy)

    @attr.gpu
    def test_backward_gpu(self):
        self.check_backward(cuda.to_gpu(self.x), cuda.to_gpu(self.gy))


@testing.unary_math_function_unittest(F.exp)
class TestExp(unittest.TestCase):
    pass


class Linear(link.Link):

    def __init__(self, in_size, out_size, initialW=None, initial_bias=None):
        super(Linear, self).__init__()  # noqa: UP008 - legacy spelling on purpose
        with self.init_scope():
            self.W = chainer.Parameter(initialW, (out_size, in_size))
            self.b = chainer.Parameter(initial_bias, (out_size,))

    def forward(self, x):
        y = F.matmul(x, self.W, transb=True)
        return y + F.broadcast_to(self.b, y.shape)


@testing.inject_backend_tests(
    None,
    [{}, {'use_cuda': True}])
class TestLinear(testing.LinkTestCase):

    param_names = ('W', 'b')

    def setUp(self):
        self.check_backward_options.update({'atol': 1e-3, 'rtol': 1e-3})

    def generate_params(self):
        initialW = numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32)
        initial_bias = numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32)
        return initialW, initial_bias

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, (4, 2)).astype(numpy.float32)
        return x,

    def create_link(self, initializers):
        initialW, initial_bias = initializers
        return Linear(2, 3, initialW=initialW, initial_bias=initial_bias)

    def forward(self, linear, inputs, device):
        x, = inputs
        return linear(x),

    def forward_expected(self, linear, inputs):
        x, = inputs
        return x.dot(linear.W.array.T) + linear.b.array,


testing.run_module(__name__, __file__)
