"""Chainer 7.8.1's public surface, by module, and the status of each name in chainer_compat.

A name is implemented when it resolves at the same path under ``chainer_compat``, out when
``KNOWN_DIVERGENCES`` gives the reason it is left out on purpose, and planned otherwise.
Layer 8: imports chainer_compat modules only inside functions, to look names up.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType

__all__ = [
    "CHAINER_MODULES", "CHAINER_NAMES", "CHAINER_VERSION", "IMPLEMENTED", "KNOWN_DIVERGENCES",
    "MODULE_ALIASES", "OUT", "PLANNED", "TOP_LEVEL_SUBMODULES", "SurfaceName", "compat_path",
    "divergence_reason", "exists", "is_chainer_module", "names", "status", "surface",
]

CHAINER_VERSION = "7.8.1"

IMPLEMENTED = "implemented"
PLANNED = "planned"
OUT = "out"


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _module_tree(text: str) -> frozenset[str]:
    """Reads ``parent: child child ...`` lines (continued on indented lines) into dotted paths."""
    paths = {"chainer"}
    parent = ""
    for line in text.splitlines():
        head, colon, tail = line.partition(":")
        if colon:
            parent = head.strip()
            children = tail.split()
        else:
            children = line.split()
        paths.update(f"{parent}.{child}" for child in children)
    return frozenset(paths)


# Every public module of Chainer 7.8.1 (no path component starting with "_"), as a tree. The
# porting report uses it to tell a module (``chainer.links``) from a name (``chainer.config``).
CHAINER_MODULES: frozenset[str] = _module_tree("""
    chainer: backend backends computational_graph configuration cuda dataset datasets
             device_resident distribution distributions exporters function function_hook
             function_hooks function_node functions gradient_check graph_optimizations
             initializer initializers iterators link link_hook link_hooks links memory_layouts
             optimizer optimizer_hooks optimizers reporter sequential serializer serializers
             testing training types utils variable warnings
    chainer.backends: cuda intel64
    chainer.dataset: convert dataset_mixin download iterator tabular
    chainer.dataset.tabular: delegate_dataset from_data tabular_dataset
    chainer.datasets: cifar concatenated_dataset dict_dataset fashion_mnist image_dataset
                      kuzushiji_mnist mnist pickle_dataset ptb sub_dataset svhn text_dataset
                      transform_dataset tuple_dataset
    chainer.distributions: bernoulli beta categorical cauchy chisquare dirichlet exponential
                           gamma geometric gumbel independent laplace log_normal
                           multivariate_normal normal one_hot_categorical pareto poisson uniform
                           utils
    chainer.exporters: caffe
    chainer.function_hooks: cuda_profile cupy_memory_profile debug_print timer
    chainer.functions: activation array connection evaluation loss math noise normalization
                       pooling rnn theano util
    chainer.functions.activation: clipped_relu crelu elu hard_sigmoid leaky_relu log_softmax
                                  maxout prelu relu rrelu selu sigmoid softmax softplus swish
                                  tanh
    chainer.functions.array: as_strided broadcast cast concat copy depth2space diagonal dstack
                             expand_dims flatten flip fliplr flipud get_item hstack im2col
                             moveaxis pad pad_sequence permutate repeat reshape resize_images
                             rollaxis scatter_add select_item separate space2depth
                             spatial_transformer_grid spatial_transformer_sampler split_axis
                             squeeze stack swapaxes tile transpose transpose_sequence vstack
                             where
    chainer.functions.connection: bilinear convolution_2d convolution_nd deconvolution_2d
                                  deconvolution_nd deformable_convolution_2d_sampler
                                  depthwise_convolution_2d dilated_convolution_2d embed_id
                                  linear local_convolution_2d shift
    chainer.functions.evaluation: accuracy binary_accuracy classification_summary r2_score
    chainer.functions.loss: absolute_error black_out contrastive crf1d cross_covariance ctc
                            decov discriminative_loss hinge huber_loss mean_absolute_error
                            mean_squared_error negative_sampling sigmoid_cross_entropy
                            softmax_cross_entropy squared_error triplet vae
    chainer.functions.math: arctanh average basic_math batch_l2_norm_squared bias ceil cholesky
                            clip cumprod cumsum det digamma einsum erf erfc erfcinv erfcx erfinv
                            exponential exponential_m1 fft fix floor fmod hyperbolic identity
                            inv lgamma linear_interpolate log_ndtr logarithm_1p logsumexp matmul
                            maximum minimum minmax ndtr ndtri polygamma prod scale sign
                            sparse_matmul sqrt square sum tensordot trigonometric zeta
    chainer.functions.noise: dropout gaussian gumbel_softmax simplified_dropconnect zoneout
    chainer.functions.normalization: batch_normalization batch_renormalization
                                     decorrelated_batch_normalization group_normalization
                                     l2_normalization layer_normalization
                                     local_response_normalization
    chainer.functions.pooling: average_pooling_2d average_pooling_nd average_pooling_nd_kernel
                               max_pooling_nd max_pooling_nd_kernel pooling_2d pooling_nd
                               pooling_nd_kernel roi_average_align_2d roi_average_pooling_2d
                               roi_max_align_2d roi_max_pooling_2d roi_pooling_2d
                               spatial_pyramid_pooling_2d unpooling_2d unpooling_nd
                               upsampling_2d
    chainer.functions.rnn: lstm n_step_gru n_step_lstm n_step_rnn slstm tree_lstm
    chainer.functions.theano: theano_function
    chainer.functions.util: forget
    chainer.graph_optimizations: static_graph static_graph_utilities
    chainer.initializers: constant normal orthogonal sampling uniform
    chainer.iterators: dali_iterator multiprocess_iterator multithread_iterator order_samplers
                       serial_iterator
    chainer.link_hooks: spectral_normalization timer weight_standardization
    chainer.links: activation caffe connection loss model normalization rnn theano
    chainer.links.activation: maxout prelu simplified_dropconnect swish
    chainer.links.caffe: caffe_function protobuf3
    chainer.links.caffe.protobuf3: caffe_pb2
    chainer.links.connection: bias bilinear convolution_2d convolution_nd deconvolution_2d
                              deconvolution_nd deformable_convolution_2d
                              depthwise_convolution_2d dilated_convolution_2d embed_id highway
                              inception inceptionbn linear local_convolution_2d
                              mlp_convolution_2d parameter scale
    chainer.links.loss: black_out crf1d hierarchical_softmax negative_sampling
    chainer.links.model: classifier vision
    chainer.links.model.vision: googlenet resnet vgg
    chainer.links.normalization: batch_normalization batch_renormalization
                                 decorrelated_batch_normalization group_normalization
                                 layer_normalization
    chainer.links.rnn: gru lstm mgu n_step_gru n_step_lstm n_step_rnn peephole tree_lstm
                       zoneoutlstm
    chainer.links.theano: theano_function
    chainer.optimizer_hooks: gradient_clipping gradient_hard_clipping gradient_lars
                             gradient_noise lasso weight_decay
    chainer.optimizers: ada_delta ada_grad adam corrected_momentum_sgd momentum_sgd msvag
                        nesterov_ag rmsprop rmsprop_graves sgd smorms3
    chainer.serializers: hdf5 npz
    chainer.testing: array attr backend condition distribution_test doctest_helper function_link
                     helper matrix parameterized random serializer training
                     unary_math_function_test
    chainer.training: extension extensions trainer trigger triggers updater updaters util
    chainer.training.extensions: computational_graph evaluator exponential_shift
                                 fail_on_nonnumber inverse_shift linear_shift log_report
                                 micro_average multistep_shift parameter_statistics plot_report
                                 polynomial_shift print_report progress_bar snapshot_writers
                                 step_shift util value_observation variable_statistics_plot
                                 variable_unchain warmup_shift
    chainer.training.triggers: early_stopping_trigger interval_trigger manual_schedule_trigger
                               minmax_value_trigger once_trigger time_trigger
    chainer.training.updaters: multiprocess_parallel_updater parallel_updater standard_updater
    chainer.utils: argument array cache conv conv_nd conv_nd_kernel error experimental imgproc
                   meta nondeterministic precision sparse type_check walker_alias
""")

# Public names of the Chainer 7.8.1 modules legacy code imports from, as ``dir()`` would list
# them after ``import chainer`` (private names and incidental imports left out).
# ``chainer.functions`` is complete: every ``F.*`` name of Chainer 7.8.1.
CHAINER_NAMES: dict[str, tuple[str, ...]] = {
    "chainer": _words("""
        AbstractSerializer as_array as_variable backends backward Chain ChainList config
        cross_entropy cuda dataset datasets DebugMode Deserializer DeviceResident DictSummary
        disable_experimental_feature_warning Distribution distributions Fallback
        force_backprop_mode Function function_hooks FunctionAdapter FunctionHook FunctionNode
        functions get_array_types get_compute_mode get_cpu_array_types get_current_reporter
        get_device get_dtype get_function_hooks global_config grad GradientMethod
        graph_optimizations Initializer initializers is_arrays_compatible is_debug iterators
        kl_divergence Link LinkHook links mixed16 no_backprop_mode Optimizer optimizers
        Parameter print_runtime_info register_kl report report_scope Reporter Sequential
        Serializer serializers set_debug should_use_cudnn should_use_cudnn_tensor_core
        static_code static_graph Summary training UpdateRule using_config using_device Variable
        variable warnings
    """),
    "chainer.backend": _words("""
        ChainerxDevice copyto CpuDevice Device from_chx get_array_module get_device
        get_device_from_array GpuDevice Intel64Device to_chx using_device
    """),
    "chainer.backends": _words("""
        cuda intel64
    """),
    "chainer.backends.cuda": _words("""
        available check_cuda_available clear_memo copy cublas cuda cudnn cudnn_enabled cupy
        cupyx Device DummyDevice DummyDeviceType elementwise Event fuse get_array_module
        get_cudnn_dropout_states get_cudnn_dropout_states_core get_device get_device_from_array
        get_device_from_id get_max_workspace_size GpuDevice libcudnn memoize memory_pool ndarray
        pinned_memory_pool raw reduce set_max_workspace_size should_use_cudnn
        should_use_cudnn_tensor_core Stream to_cpu to_gpu
    """),
    "chainer.backends.intel64": _words("""
        check_ideep_available inputs_all_ready Intel64Device is_ideep_available mdarray
        should_use_ideep
    """),
    "chainer.graph_optimizations": _words("""
        static_code static_graph static_graph_utilities
    """),
    "chainer.graph_optimizations.static_graph": _words("""
        ArrayInfo ScheduleInfo ScheduleManager static_graph StaticScheduleFunction
    """),
    "chainer.graph_optimizations.static_graph_utilities": _words("""
        static_code static_forward_optimizations
    """),
    "chainer.configuration": _words("""
        config global_config GlobalConfig LocalConfig using_config
    """),
    "chainer.variable": _words("""
        as_array as_variable Parameter Variable variable_repr variable_str VariableNode
    """),
    "chainer.function_node": _words("""
        FunctionNode grad
    """),
    "chainer.function": _words("""
        force_backprop_mode Function FunctionAdapter no_backprop_mode
    """),
    "chainer.function_hook": _words("""
        FunctionHook
    """),
    "chainer.function_hooks": _words("""
        CUDAProfileHook CupyMemoryProfileHook PrintHook TimerHook
    """),
    "chainer.functions": _words("""
        absolute absolute_error accuracy add arccos arcsin arctan arctan2 arctanh argmax
        argmax_crf1d argmin as_strided average average_pooling_1d average_pooling_2d
        average_pooling_3d average_pooling_nd batch_det batch_inv batch_l2_norm_squared
        batch_matmul batch_normalization batch_renormalization bernoulli_nll bias bilinear
        binary_accuracy black_out broadcast broadcast_to cast ceil cholesky
        classification_summary clip clipped_relu concat connectionist_temporal_classification
        contrastive convolution_1d convolution_2d convolution_3d convolution_nd copy cos cosh
        crelu crf1d cross_covariance cumprod cumsum deconvolution_1d deconvolution_2d
        deconvolution_3d deconvolution_nd decorrelated_batch_normalization decov
        deformable_convolution_2d_sampler depth2space depthwise_convolution_2d det diagonal
        digamma dilated_convolution_2d discriminative_margin_based_clustering_loss dropout
        dstack einsum elu embed_id erf erfc erfcinv erfcx erfinv exp expand_dims expm1 f1_score
        fft fix fixed_batch_normalization fixed_batch_renormalization
        fixed_decorrelated_batch_normalization flatten flip fliplr flipud floor fmod forget
        gaussian gaussian_kl_divergence gaussian_nll get_item group_normalization gumbel_softmax
        hard_sigmoid hinge hstack huber_loss identity ifft im2col inv layer_normalization
        leaky_relu lgamma linear linear_interpolate local_convolution_2d
        local_response_normalization log log10 log1p log2 log_ndtr log_softmax logsumexp lstm
        matmul max max_pooling_1d max_pooling_2d max_pooling_3d max_pooling_nd maximum maxout
        mean mean_absolute_error mean_squared_error min minimum moveaxis n_step_bigru
        n_step_bilstm n_step_birnn n_step_gru n_step_lstm n_step_rnn ndtr ndtri
        negative_sampling normalize pad pad_sequence permutate polygamma precision prelu prod
        r2_score recall relu relu6 repeat reshape resize_images roi_average_align_2d
        roi_average_pooling_2d roi_max_align_2d roi_max_pooling_2d roi_pooling_2d rollaxis rrelu
        rsqrt scale scatter_add select_item selu separate shift sigmoid sigmoid_cross_entropy
        sign simplified_dropconnect sin sinh slstm softmax softmax_cross_entropy softplus
        space2depth sparse_matmul spatial_pyramid_pooling_2d spatial_transformer_grid
        spatial_transformer_sampler split_axis sqrt square squared_difference squared_error
        squeeze stack sum sum_to swapaxes swish tan tanh tensordot tile transpose
        transpose_sequence tree_lstm triplet unpooling_1d unpooling_2d unpooling_3d unpooling_nd
        upsampling_2d vstack where zeta zoneout
    """),
    "chainer.functions.math.basic_math": _words("""
        Absolute absolute AbsoluteGrad Add add AddConstant Div div DivFromConstant
        DivFromConstantGrad DivGrad floordiv install_variable_arithmetics matmul Mul mul
        MulConstant MultiAdd Neg neg pow PowConstVar PowConstVarGrad PowVarConst PowVarConstGrad
        PowVarVar PowVarVarGrad rdiv rfloordiv rmatmul rpow rsub Sub sub SubFromConstant
    """),
    "chainer.functions.math.exponential": _words("""
        Exp exp Log log Log10 log10 Log2 log2
    """),
    "chainer.functions.math.identity": _words("""
        Identity identity
    """),
    "chainer.link": _words("""
        Chain ChainList Link
    """),
    "chainer.links": _words("""
        BatchNormalization BatchRenormalization Bias Bilinear BinaryHierarchicalSoftmax BlackOut
        ChildSumTreeLSTM Classifier Convolution1D Convolution2D Convolution3D ConvolutionND
        CRF1d Deconvolution1D Deconvolution2D Deconvolution3D DeconvolutionND
        DecorrelatedBatchNormalization DeformableConvolution2D DepthwiseConvolution2D
        DilatedConvolution2D EmbedID GoogLeNet GroupNormalization GRU Highway Inception
        InceptionBN LayerNormalization Linear LocalConvolution2D LSTM Maxout MLPConvolution2D
        NaryTreeLSTM NegativeSampling NStepBiGRU NStepBiLSTM NStepBiRNNReLU NStepBiRNNTanh
        NStepGRU NStepLSTM NStepRNNReLU NStepRNNTanh Parameter PReLU ResNet101Layers
        ResNet152Layers ResNet50Layers Scale SimplifiedDropconnect StatefulGRU StatefulMGU
        StatefulPeepholeLSTM StatefulZoneoutLSTM StatelessGRU StatelessLSTM StatelessMGU Swish
        TheanoFunction VGG16Layers VGG19Layers
    """),
    "chainer.link_hooks": _words("""
        SpectralNormalization TimerHook WeightStandardization
    """),
    "chainer.sequential": _words("""
        Sequential
    """),
    "chainer.initializer": _words("""
        get_fans Initializer
    """),
    "chainer.initializers": _words("""
        Constant DownsamplingConvFilter generate_array GlorotNormal GlorotUniform HeNormal
        HeUniform Identity LeCunNormal LeCunUniform NaN Normal One Orthogonal Uniform
        UpsamplingDeconvFilter Zero
    """),
    "chainer.optimizer": _words("""
        GradientClipping GradientHardClipping GradientMethod GradientNoise Hyperparameter
        HyperparameterProxy Lasso Optimizer UpdateRule WeightDecay
    """),
    "chainer.optimizers": _words("""
        AdaBound AdaDelta AdaGrad Adam AdamW AMSBound AMSGrad CorrectedMomentumSGD MomentumSGD
        MSVAG NesterovAG RMSprop RMSpropGraves SGD SMORMS3
    """),
    "chainer.optimizer_hooks": _words("""
        GradientClipping GradientHardClipping GradientLARS GradientNoise Lasso WeightDecay
    """),
    "chainer.serializer": _words("""
        AbstractSerializer Deserializer Serializer
    """),
    "chainer.serializers": _words("""
        DictionarySerializer HDF5Deserializer HDF5Serializer load_hdf5 load_npz NpzDeserializer
        save_hdf5 save_npz
    """),
    "chainer.dataset": _words("""
        cache_or_load_file cached_download concat_examples ConcatWithAsyncTransfer Converter
        converter DatasetMixin get_dataset_directory get_dataset_root Iterator set_dataset_root
        TabularDataset to_device
    """),
    "chainer.datasets": _words("""
        ConcatenatedDataset DictDataset get_cifar10 get_cifar100 get_cross_validation_datasets
        get_cross_validation_datasets_random get_fashion_mnist get_fashion_mnist_labels
        get_kuzushiji_mnist get_kuzushiji_mnist_labels get_mnist get_ptb_words
        get_ptb_words_vocabulary get_svhn ImageDataset LabeledImageDataset
        LabeledZippedImageDataset MultiZippedImageDataset open_pickle_dataset
        open_pickle_dataset_writer PickleDataset PickleDatasetWriter split_dataset
        split_dataset_n split_dataset_n_random split_dataset_random SubDataset TextDataset
        TransformDataset TupleDataset ZippedImageDataset
    """),
    "chainer.iterators": _words("""
        DaliIterator MultiprocessIterator MultithreadIterator OrderSampler SerialIterator
        ShuffleOrderSampler
    """),
    "chainer.reporter": _words("""
        DictSummary get_current_reporter report report_scope Reporter Summary
    """),
    "chainer.training": _words("""
        Extension extensions get_trigger IntervalTrigger make_extension ParallelUpdater
        PRIORITY_EDITOR PRIORITY_READER PRIORITY_WRITER StandardUpdater Trainer triggers Updater
        updaters util
    """),
    "chainer.training.extensions": _words("""
        dump_graph DumpGraph Evaluator ExponentialShift FailOnNonNumber InverseShift LinearShift
        LogReport MicroAverage MultistepShift observe_lr observe_value ParameterStatistics
        PlotReport PolynomialShift PrintReport ProgressBar snapshot snapshot_object StepShift
        unchain_variables VariableStatisticsPlot WarmupShift
    """),
    "chainer.training.triggers": _words("""
        BestValueTrigger EarlyStoppingTrigger IntervalTrigger ManualScheduleTrigger
        MaxValueTrigger MinValueTrigger OnceTrigger TimeTrigger
    """),
    "chainer.training.updaters": _words("""
        MultiprocessParallelUpdater ParallelUpdater StandardUpdater
    """),
    "chainer.computational_graph": _words("""
        build_computational_graph ComputationalGraph DotNode
    """),
    "chainer.gradient_check": _words("""
        assert_allclose check_backward check_double_backward NondifferentiableError
        numerical_grad
    """),
    "chainer.utils": _words("""
        CooMatrix enable_final experimental final force_array force_type get_conv_outsize
        get_deconv_outsize get_order nondeterministic size_of_shape sum_to tempdir to_coo
    """),
    "chainer.utils.type_check": _words("""
        Atom BinaryOperator BoolBinaryOperator Call Constant eval expect expect_broadcast_shapes
        Expr get_function_check_context get_light_types get_types GetAttr GetItem in_light_mode
        InvalidType light_mode LightMode LightTypeInfoTuple make_variable prod same_types
        Testable TypeInfo TypeInfoTuple UnaryOperator Variable
    """),
    "chainer.testing": _words("""
        assert_allclose assert_warns BackendConfig distribution_unittest fix_random
        from_pytest_parameterize FunctionTestCase FunctionTestError generate_matrix
        generate_seed get_trainer_with_mock_updater InitializerArgument inject_backend_tests
        LinkInitializersTestCase LinkTestCase LinkTestError parameterize parameterize_pytest
        patch product product_dict run_module save_and_load save_and_load_hdf5 save_and_load_npz
        unary_math_function_unittest with_requires without_requires
    """),
    "chainer.testing.attr": _words("""
        chainerx check_available cudnn get_error gpu ideep is_available multi_gpu slow
    """),
    "chainer.testing.backend": _words("""
        BackendConfig inject_backend_tests
    """),
    "chainer.testing.condition": _words("""
        QuietTestRunner repeat repeat_with_success_at_least retry
    """),
    "chainer.distributions": _words("""
        Bernoulli Beta Categorical Cauchy Chisquare Dirichlet Exponential Gamma Geometric Gumbel
        Independent Laplace LogNormal MultivariateNormal Normal OneHotCategorical Pareto Poisson
        Uniform
    """),
}

# compat: Chainer keeps old module paths as aliases of the new ones.
MODULE_ALIASES: dict[str, str] = {"chainer.cuda": "chainer.backends.cuda"}

# The submodules ``import chainer`` leaves as attributes of the package in Chainer 7.8.1, so that
# ``chainer.cuda.to_gpu(...)`` works without importing ``chainer.cuda`` first.
TOP_LEVEL_SUBMODULES: tuple[str, ...] = _words("""
    backend backends configuration cuda dataset datasets device_resident distribution
    distributions function function_hook function_hooks function_node functions
    graph_optimizations initializer initializers iterators link link_hook link_hooks links
    optimizer optimizers reporter sequential serializer serializers training utils variable
""")

_CHAINERX = ("ChainerX (Chainer's C++ array backend) is out of scope: chainer_compat runs on "
             "NumPy and CuPy; chainerx.is_available() is False under the alias")
_THEANO = "Theano is no longer maintained and does not install on current Python"
_CUDA_KERNEL_SOURCE = ("an internal generator of Chainer's CUDA kernel source: chainer_compat's "
                       "N-dimensional pooling and convolution run CuPy code of their own")
_STATIC_SCHEDULE = ("the machinery of Chainer's static schedules: chainer_compat runs static "
                    "chains define-by-run, as Chainer does with config.use_static_graph False")

# Deliberate omissions: dotted name (or module, covering everything under it) -> why.
KNOWN_DIVERGENCES: dict[str, str] = {
    "chainer.functions.pooling.average_pooling_nd_kernel": _CUDA_KERNEL_SOURCE,
    "chainer.functions.pooling.max_pooling_nd_kernel": _CUDA_KERNEL_SOURCE,
    "chainer.functions.pooling.pooling_nd_kernel": _CUDA_KERNEL_SOURCE,
    "chainer.utils.conv_nd_kernel": _CUDA_KERNEL_SOURCE,
    "chainer.graph_optimizations.static_graph.ArrayInfo": _STATIC_SCHEDULE,
    "chainer.graph_optimizations.static_graph.ScheduleInfo": _STATIC_SCHEDULE,
    "chainer.graph_optimizations.static_graph.StaticScheduleFunction": _STATIC_SCHEDULE,
    "chainer.functions.theano": _THEANO,
    "chainer.links.TheanoFunction": _THEANO,
    "chainer.links.theano": _THEANO,
}


@dataclass(frozen=True)
class SurfaceName:
    """One public Chainer name and where chainer_compat stands on it.

    Attributes:
        module: Chainer's module path, e.g. ``'chainer.functions'``.
        name: The name in that module, e.g. ``'relu'``.
        status: ``'implemented'``, ``'planned'`` or ``'out'``.
        reason: Why the name is left out (``status == 'out'``), else None.
    """

    module: str
    name: str
    status: str
    reason: str | None = None

    @property
    def path(self) -> str:
        """The dotted path, e.g. ``'chainer.functions.relu'``."""
        return f"{self.module}.{self.name}"


def compat_path(path: str) -> str:
    """Maps a Chainer path to chainer_compat's: ``'chainer.x.y'`` -> ``'chainer_compat.x.y'``.

    Raises:
        ValueError: If ``path`` is not under ``chainer``.
    """
    if path != "chainer" and not path.startswith("chainer."):
        raise ValueError(f"path must start with 'chainer.', got {path!r}")
    return "chainer_compat" + path[len("chainer"):]


def _has_submodule(module: ModuleType, name: str) -> bool:
    if not hasattr(module, "__path__"):
        return False
    try:
        return importlib.util.find_spec(f"{module.__name__}.{name}") is not None
    except ModuleNotFoundError:
        return False


def _lookup(owner: object, name: str, last: bool) -> tuple[bool, object]:
    """Finds ``owner.name`` the way an import or attribute access would, without importing CuPy
    for a lazy module attribute that is only being checked (``last``)."""
    if isinstance(owner, ModuleType):
        if name in vars(owner):
            return True, vars(owner)[name]
        if _has_submodule(owner, name):
            return True, importlib.import_module(f"{owner.__name__}.{name}")
        # A module-level __getattr__ (PEP 562) may import CuPy to build the value; dir() lists
        # the names it serves, which is all a check of the last component needs.
        if last and "__getattr__" in vars(owner) and name in dir(owner):
            return True, None
    try:
        return True, getattr(owner, name)
    except AttributeError:
        return False, None


def exists(path: str) -> bool:
    """Whether Chainer's dotted ``path`` resolves under chainer_compat at the same place.

    ``exists('chainer.functions.relu')`` is True when ``chainer_compat.functions.relu`` is there;
    modules are imported as needed, as ``import``/``from ... import`` would.

    Raises:
        ValueError: If ``path`` is not under ``chainer``.
    """
    parts = compat_path(path).split(".")
    current: object = importlib.import_module(parts[0])
    for index, part in enumerate(parts[1:], start=2):
        found, current = _lookup(current, part, last=index == len(parts))
        if not found:
            return False
    return True


def divergence_reason(path: str) -> str | None:
    """Why ``path`` (or a module above it) is left out on purpose; None when it is not."""
    if path == "chainerx" or path.startswith("chainerx."):
        return _CHAINERX
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        reason = KNOWN_DIVERGENCES.get(".".join(parts[:end]))
        if reason is not None:
            return reason
    return None


def is_chainer_module(path: str) -> bool:
    """Whether ``path`` names a module of Chainer 7.8.1 (``'chainer.links'``: yes;
    ``'chainer.config'``: no, that is an object in ``chainer``)."""
    return path in CHAINER_MODULES


def names(module: str) -> tuple[str, ...]:
    """Chainer 7.8.1's public names of ``module`` (an alias such as ``chainer.cuda`` gives its
    target's); empty for a module this list does not track."""
    return CHAINER_NAMES.get(MODULE_ALIASES.get(module, module), ())


def status(path: str) -> str:
    """``'implemented'``, ``'out'`` or ``'planned'`` for a dotted Chainer path (a path may name a
    module, a name, or an attribute of a name)."""
    if not path.startswith("chainerx") and exists(path):
        return IMPLEMENTED
    if divergence_reason(path) is not None:
        return OUT
    return PLANNED


def surface(modules: Iterable[str] | None = None) -> list[SurfaceName]:
    """Every tracked Chainer 7.8.1 name with its status here, module by module.

    Args:
        modules: The Chainer modules to list (default: all of ``CHAINER_NAMES``).

    Returns:
        One :class:`SurfaceName` per name, in ``CHAINER_NAMES`` order.

    Raises:
        KeyError: If a module is not in ``CHAINER_NAMES``.
    """
    selected = list(CHAINER_NAMES) if modules is None else list(modules)
    entries = []
    for module in selected:
        for name in CHAINER_NAMES[module]:
            path = f"{module}.{name}"
            entry_status = status(path)
            reason = divergence_reason(path) if entry_status == OUT else None
            entries.append(SurfaceName(module, name, entry_status, reason))
    return entries
