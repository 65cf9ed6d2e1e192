"""``torch.autocast`` on the CPU: ops that gain from lower precision run in bfloat16 (or
float16), ops that need range run in float32.

PyTorch counterpart: ``torch/amp/autocast_mode.py`` (the context manager) and
``aten/src/ATen/autocast_mode.cpp`` (the ``AutocastCPU`` dispatch key and its op lists).
Inside ``with torch.autocast("cpu"):`` every op passes here first, above autograd
(``_dispatch.apply_op`` checks one flag, :data:`_active`), and its floating tensor inputs
are cast according to the op's policy in PyTorch's CPU lists:

- ``lower_precision_fp`` (matrix products and convolutions: ``mm``, ``bmm``, ``addmm``,
  ``matmul``, ``linear``, ``conv2d``, ...): float32 inputs become the autocast dtype;
- ``fp32`` (losses, ``prod``, ``trace``, linear algebra, ...): lower-precision inputs
  become float32;
- ``promote`` (``cat``, ``stack``, ``index_copy``): all become the widest dtype among them;
- any other op runs on what it is given (a bfloat16 input gives a bfloat16 result).

float64 inputs are never cast. A cast is an ordinary ``to(dtype)`` (``ToCopyBackward0``
in the graph), and a float32 leaf that requires grad (a weight) is cast once per
autocast region and reused, as PyTorch caches it. Functions PyTorch autocasts as a whole
before they decompose (``F.linear``, ``F.conv2d``, ``F.cross_entropy``, ``F.l1_loss``,
``Tensor.matmul``) call :func:`cast_function_inputs` at their start.

Where minigrad differs: the state is one for the process, not one per thread; only the
CPU has autocast (``device_type="cuda"`` warns and disables itself, as PyTorch without a
GPU does); ops minigrad does not have are listed anyway, so the lists read as PyTorch's.
"""
import functools
import warnings
import weakref

from .. import _tensor_class, dtypes

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available", "is_autocast_enabled",
           "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype", "is_autocast_cache_enabled",
           "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
           "autocast_decrement_nesting", "is_autocast_cpu_enabled", "set_autocast_cpu_enabled",
           "get_autocast_cpu_dtype", "set_autocast_cpu_dtype", "LOWER_PRECISION_FP", "FP32", "PROMOTE",
           "cast_inputs", "cast_function_inputs"]

# PyTorch's AutocastCPU registrations (autocast_mode.cpp), by aten op name.
LOWER_PRECISION_FP = frozenset("""
    conv1d conv2d conv3d bmm mm linalg_vecdot baddbmm addmm _addmm_activation addbmm linear _convolution
    matmul conv_tbc mkldnn_rnn_layer conv_transpose1d conv_transpose2d conv_transpose3d prelu
    scaled_dot_product_attention _native_multi_head_attention""".split())
FP32 = frozenset("""
    avg_pool3d binary_cross_entropy grid_sampler polar prod quantile nanquantile stft cdist grid_sampler_2d
    _grid_sampler_2d_cpu_fallback grid_sampler_3d trace view_as_complex cholesky cholesky_inverse
    cholesky_solve inverse lu_solve orgqr ormqr pinverse max_pool3d max_unpool2d max_unpool3d
    adaptive_avg_pool3d reflection_pad1d reflection_pad2d replication_pad1d replication_pad2d
    replication_pad3d mse_loss cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss
    poisson_nll_loss smooth_l1_loss cross_entropy_loss l1_loss huber_loss margin_ranking_loss
    soft_margin_loss triplet_margin_loss multi_margin_loss ctc_loss kl_div multilabel_margin_loss
    binary_cross_entropy_with_logits fft_fft fft_ifft fft_fft2 fft_ifft2 fft_fftn fft_ifftn fft_rfft
    fft_irfft fft_rfft2 fft_irfft2 fft_rfftn fft_irfftn fft_hfft fft_ihfft linalg_cond linalg_matrix_rank
    linalg_solve linalg_cholesky linalg_svdvals linalg_eigvals linalg_eigvalsh linalg_inv
    linalg_householder_product linalg_tensorinv linalg_tensorsolve fake_quantize_per_tensor_affine geqrf
    _lu_with_info qr svd triangular_solve fractional_max_pool2d fractional_max_pool3d adaptive_max_pool3d
    multilabel_margin_loss_forward linalg_qr linalg_cholesky_ex linalg_svd linalg_eig linalg_eigh
    linalg_lstsq linalg_inv_ex""".split())
PROMOTE = frozenset({"stack", "cat", "index_copy"})

_active = False         # CPU autocast on: what _dispatch.apply_op tests for every op
_state = {"cpu": {"enabled": False, "dtype": dtypes.bfloat16},
          "cuda": {"enabled": False, "dtype": dtypes.float16}}
_cache = {"enabled": True, "nesting": 0, "casts": {}}


def is_autocast_available(device_type):
    """Whether autocast exists for ``device_type`` here: the CPU only."""
    return device_type == "cpu"


def is_autocast_enabled(device_type=None):
    """``torch.is_autocast_enabled(device_type)``; with no argument, CUDA's (as PyTorch)."""
    return _state.get(device_type or "cuda", {"enabled": False})["enabled"]


def set_autocast_enabled(device_type, enabled=None):
    """``torch.set_autocast_enabled(device_type, enabled)`` (or the older ``(enabled)``, CUDA)."""
    global _active
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _state[device_type]["enabled"] = bool(enabled)
    _active = _state["cpu"]["enabled"]


def get_autocast_dtype(device_type):
    return _state[device_type]["dtype"]


def set_autocast_dtype(device_type, dtype):
    _state[device_type]["dtype"] = dtype


def is_autocast_cache_enabled():
    return _cache["enabled"]


def set_autocast_cache_enabled(enabled):
    _cache["enabled"] = bool(enabled)


def clear_autocast_cache():
    _cache["casts"].clear()


def autocast_increment_nesting():
    _cache["nesting"] += 1
    return _cache["nesting"]


def autocast_decrement_nesting():
    _cache["nesting"] -= 1
    return _cache["nesting"]


def _deprecated(old, new):
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning,
                  stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


class autocast:
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: a
    context manager (and a decorator) that runs the ops inside in mixed precision."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        from .._device import device
        device(device_type)                 # an unknown device name: PyTorch's RuntimeError
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else _state.get(device_type, _state["cpu"])["dtype"]
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if device_type == "cpu" and enabled and self.fast_dtype not in (dtypes.bfloat16, dtypes.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          stacklevel=2)
            enabled = False
        elif device_type == "cuda" and enabled:
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            enabled = False
        elif device_type not in ("cpu", "cuda"):
            enabled = False                 # no autocast for other devices here
        self._enabled = enabled

    def __enter__(self):
        if self.device not in _state:
            return self
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self.device not in _state:
            return False
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


# --- casting the inputs of one op -----------------------------------------------------------
def _eligible(t):
    """A floating tensor with data (not a wrapped Python number), other than float64."""
    return (isinstance(t, _tensor_class.Tensor) and t._python_scalar is None and t.is_floating_point()
            and t.dtype is not dtypes.float64 and not t.is_meta)


def _cast(t, dtype):
    if not _eligible(t) or t.dtype is dtype:
        return t
    # A float32 leaf weight is cast once per autocast region (PyTorch's cached_cast).
    cacheable = (dtype is _state["cpu"]["dtype"] and t.dtype is dtypes.float32 and t.requires_grad
                 and t.grad_fn is None and t._base is None and _cache["enabled"])
    if cacheable:
        hit = _cache["casts"].get(id(t))
        if hit is not None and hit[0]() is t:
            return hit[1]
    out = t.to(dtype)
    if cacheable:
        _cache["casts"][id(t)] = (weakref.ref(t), out)
    return out


def _policy_dtype(name, tensors):
    if name in LOWER_PRECISION_FP:
        return _state["cpu"]["dtype"]
    if name in FP32:
        return dtypes.float32
    if name in PROMOTE:
        widest = _state["cpu"]["dtype"]
        for t in tensors:
            if _eligible(t) or (isinstance(t, _tensor_class.Tensor) and t.dtype is dtypes.float64):
                widest = _wider(widest, t.dtype)
        return widest
    return None


def _wider(a, b):
    if a is b:
        return a
    order = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
    if {a, b} == {dtypes.float16, dtypes.bfloat16}:
        return dtypes.float32
    return max(a, b, key=order.index)


_OP_NAMES = {}


def cast_inputs(op, tensors):
    """The tensors an op of the table runs on inside CPU autocast (its policy by its aten
    name; ``_dispatch.apply_op`` calls this only while :data:`_active`)."""
    name = _OP_NAMES.get(op)
    if name is None:
        name = _OP_NAMES[op] = op.aten.partition(".")[0]
    dtype = _policy_dtype(name, tensors)
    if dtype is None:
        return tensors
    return tuple(_cast(t, dtype) for t in tensors)


def cast_function_inputs(name, *tensors):
    """For a function PyTorch autocasts as a whole (``linear``, ``conv2d``,
    ``cross_entropy_loss``, ``l1_loss``, ``matmul``): its tensor arguments (None passes
    through) cast by the policy of ``name``; the ops inside then see tensors of the right
    dtype already."""
    dtype = _policy_dtype(name, tensors)
    return tuple(t if t is None else _cast(t, dtype) for t in tensors)


# --- custom autograd Functions ----------------------------------------------------------------
def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """``@torch.amp.custom_fwd(device_type="cpu", cast_inputs=None)`` on a custom Function's
    ``forward``: runs it under the caller's autocast state (or, with ``cast_inputs``, with
    autocast off and its floating inputs cast to that dtype), and records the state for
    :func:`custom_bwd`."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*(_cast_floating(a, cast_inputs) for a in args),
                       **{k: _cast_floating(v, cast_inputs) for k, v in kwargs.items()})
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """``@torch.amp.custom_bwd(device_type="cpu")`` on ``backward``: runs it under the
    autocast state its forward ran under."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


def _cast_floating(value, dtype):
    if isinstance(value, _tensor_class.Tensor) and value.is_floating_point() and not value.is_meta:
        return value.to(dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_floating(v, dtype) for v in value)
    return value
