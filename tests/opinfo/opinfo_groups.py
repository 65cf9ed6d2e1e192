"""Which OpInfo entries and PyTorch names are left out (and why), and the family each
OpInfo entry belongs to. Shared by the OpInfo sweep (``opinfo_sweep.py``) and
``tools/ops_inventory.py`` (``docs/ops.md``).

Left out is only what a CPU engine on numpy cannot mean, by a rule with one reason per
group (never "not yet"): :data:`REASONS` names the groups, :func:`name_left_out_reason`
and :func:`left_out_reason` apply them.

- ``devices``: what exists for an accelerator (CUDA, MPS, XPU, ...: ``Tensor.cuda``,
  ``pin_memory``, streams, the CUDA jiterator's OpInfo entries);
- ``torchscript``: the C++ bindings of TorchScript and its runtime (the IR's ``Graph``,
  ``Node``, ``ScriptModule``, type objects, ``BroadcastingList``...);
- ``quantized``: quantized tensors (``quantize_per_tensor``, ``q_scale``, ``qint8``) and
  the sub-byte, bit and float8/float4 dtypes kept for quantized and low-precision kernels;
- ``sparse`` and ``nested``: sparse layouts and nested (jagged) tensors, which need a
  storage model minigrad's dense numpy arrays do not have;
- ``named tensors``: dimension names (``Tensor.names``, ``refine_names``, ``align_to``; the
  installed PyTorch 2.13 no longer has them, the rule stays for older ones);
- ``complex``: complex dtypes and what only makes sense with them (``view_as_complex``,
  ``polar``, ``Tensor.imag``), and OpInfo entries whose result on float32 samples is
  complex (``fft.fft``, ``linalg.eig``; the sweep applies that rule,
  :func:`complex_result_reason`): minigrad has no complex dtypes, so no complex-valued
  results and no complex-valued autograd;
- ``deprecated``: what PyTorch itself says is deprecated or removed, listed in
  :data:`DEPRECATED`; :func:`deprecation_evidence` finds PyTorch's own sentence for each
  (docstring, or the message the function raises or warns with), so a claim the installed
  PyTorch no longer makes fails loudly.

Families (:func:`family`) sort OpInfo entries for the people adding ops: PyTorch's own
OpInfo classes (``UnaryUfuncInfo``, ``BinaryUfuncInfo``, ``ReductionOpInfo``,
``SpectralFuncInfo``) and the entry's namespace first, then a few name lists.
"""
import fnmatch
import importlib
import inspect
import re
import warnings

__all__ = ["DEPRECATED", "FAMILIES", "KEPT_THOUGH_DEPRECATED", "REASONS", "complex_result_reason",
           "deprecation_evidence", "dtype_left_out_reason", "family", "left_out_reason",
           "module_left_out_reason", "name_left_out_reason"]

REASONS = {
    "devices": "devices: exists for an accelerator (CUDA, MPS, XPU, ...); minigrad runs on the CPU only",
    "torchscript": "TorchScript internals: C++ bindings of the TorchScript compiler and runtime (its IR, "
                   "types and script objects, and the dispatcher keys and file reader they use), which "
                   "eager Python code does not compute with",
    "quantized": "quantized: quantized tensors and the sub-byte, bit and float8/float4 storage dtypes "
                 "kept for quantized and low-precision kernels",
    "sparse": "sparse storage: sparse layouts need a storage model minigrad (dense numpy arrays) "
              "does not have",
    "nested": "nested storage: nested (jagged) tensors need a storage model minigrad (dense numpy "
              "arrays) does not have",
    "named": "named tensors: dimension names are not modelled",   # torch 2.13 has none of these names left
    "complex": "complex: the result is complex-valued; minigrad has no complex dtypes, so no "
               "complex-valued results or autograd",
    "deprecated": "deprecated: PyTorch's docs say so",
}

# Names PyTorch calls deprecated or removed (the evidence is checked, see
# deprecation_evidence), as "torch." paths.
DEPRECATED = (
    "torch.chain_matmul", "torch.cholesky", "torch.eig", "torch.ger", "torch.lstsq", "torch.lu",
    "torch.lu_solve", "torch.matrix_rank", "torch.qr", "torch.range", "torch.set_default_tensor_type",
    "torch.solve", "torch.svd", "torch.symeig", "torch.triangular_solve",
    "torch.nn.functional.upsample", "torch.nn.functional.upsample_bilinear",
    "torch.nn.functional.upsample_nearest", "torch.nn.UpsamplingBilinear2d", "torch.nn.UpsamplingNearest2d",
    "torch.Tensor.cholesky", "torch.Tensor.eig", "torch.Tensor.ger", "torch.Tensor.lstsq", "torch.Tensor.lu",
    "torch.Tensor.lu_solve", "torch.Tensor.matrix_power", "torch.Tensor.qr", "torch.Tensor.reinforce",
    "torch.Tensor.resize", "torch.Tensor.resize_as", "torch.Tensor.solve", "torch.Tensor.svd",
    "torch.Tensor.symeig", "torch.Tensor.triangular_solve", "torch.Tensor.volatile",
)
# Deprecated per PyTorch's docs, yet counted: real code calls them, and issue 32 names
# torch.norm among what must work.
KEPT_THOUGH_DEPRECATED = {"torch.norm": "issue 32: real code calls it"}

_EVIDENCE = re.compile(r"\b(?:is|are)\s+(?:now\s+)?deprecated\b|deprecated since version|\bwas removed\b")


def _resolve(path):
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for i, name in enumerate(parts[1:], start=1):
        try:
            obj = getattr(obj, name)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[:i + 1]))
    return obj


def _source(obj):
    try:
        return inspect.getsource(obj)
    except (TypeError, OSError):
        return ""


def _texts(path):
    """What PyTorch says about ``path``: its docstring, its source (the messages it raises
    or warns with) and the source of a function it imports to delegate to, the docstring
    of the function its docstring points to (``See :func:`torch.svd```), and the warning
    reading it gives (``Tensor.volatile``)."""
    import torch
    obj = inspect.getattr_static(torch.Tensor, path.rsplit(".", 1)[1]) if path.startswith("torch.Tensor.") \
        else _resolve(path)
    doc = obj.__doc__ if isinstance(getattr(obj, "__doc__", None), str) else ""
    texts = [" ".join(doc.split())]
    source = _source(obj)
    texts.append(source)
    for module, name in re.findall(r"from ([\w.]+) import (\w+)", source):
        texts.append(_source(getattr(importlib.import_module(module), name, None)))
    pointer = re.match(r"\s*(?:\S+\s*->\s*\S+\s*)?See :func:`(torch\.[\w.]+)`", doc.strip().split("\n")[-1])
    if pointer and pointer.group(1) != path:
        texts.append(f"documented as {pointer.group(1)}: {deprecation_evidence(pointer.group(1))}")
    if path.startswith("torch.Tensor.") and type(obj).__name__ == "getset_descriptor":
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(torch.zeros(()), path.rsplit(".", 1)[1])
        texts += [str(w.message) for w in caught]
    return texts


def _sentence(text, start, end):
    """The sentence (or quoted message) of ``text`` around ``text[start:end]``."""
    lefts = [i + len(mark) for mark in (". ", ":: ", '"', "'", "\n\n")
             if (i := text.rfind(mark, 0, start)) >= 0]
    rights = [i for mark in (". ", '"', "'", "\n\n", "\\n") if (i := text.find(mark, end)) >= 0]
    sentence = text[max(lefts, default=0):min(rights, default=len(text))]
    return " ".join(sentence.split()).rstrip(".") + "."


def deprecation_evidence(path):
    """PyTorch's own sentence saying ``path`` is deprecated or removed; LookupError when
    the installed PyTorch says no such thing (take it out of :data:`DEPRECATED`)."""
    for text in _texts(path):
        if text.startswith("documented as "):
            return text
        match = _EVIDENCE.search(text)
        if match:
            return _sentence(text, match.start(), match.end())
    raise LookupError(f"{path}: PyTorch does not say it is deprecated; take it out of "
                      "tests/opinfo/opinfo_groups.DEPRECATED")


# (group, fnmatch patterns over "torch." paths): names left out by their path
_NAME_PATTERNS = (
    ("devices", (
        "torch.Tensor.cuda", "torch.Tensor.xpu", "torch.Tensor.ipu", "torch.Tensor.mtia",
        "torch.Tensor.pin_memory", "torch.Tensor.record_stream", "torch.Stream", "torch.Event",
        "torch.get_device_module", "torch.AcceleratorError", "torch.OutOfMemoryError", "torch.*cudnn*",
        "torch.*miopen*", "torch.is_vulkan_available", "torch.batch_norm_gather_stats*",
        "torch.batch_norm_elemt", "torch.batch_norm_backward_*", "torch.batch_norm_stats")),
    ("quantized", (
        "torch.*quantize*", "torch.*quantized*", "torch.q_*", "torch.Tensor.q_*", "torch.qscheme",
        "torch.Tensor.qscheme", "torch.Tensor.int_repr", "torch.Tensor.dequantize", "torch.dequantize",
        "torch.*fbgemm*", "torch.Q*Storage", "torch.int_repr")),
    ("sparse", (
        "torch.sparse_*", "torch.Tensor.to_sparse*", "torch.Tensor.*sparse*", "torch.smm",
        "torch.Tensor.smm", "torch.sspaddmm", "torch.Tensor.sspaddmm", "torch.hspmm",
        "torch.Tensor.coalesce", "torch.Tensor.is_coalesced", "torch.Tensor.indices", "torch.Tensor.values",
        "torch.Tensor.crow_indices", "torch.Tensor.col_indices", "torch.Tensor.ccol_indices",
        "torch.Tensor.row_indices", "torch.Tensor.dense_dim", "torch.saddmm",
        "torch.Tensor.resize_as_sparse_", "torch.nn.functional.*sparse_support*")),
    ("nested", (
        "torch.jagged", "torch.Tensor.to_padded_tensor", "torch.nested_*")),
    ("named", (
        "torch.Tensor.names", "torch.Tensor.rename", "torch.Tensor.rename_", "torch.Tensor.refine_names",
        "torch.Tensor.align_to", "torch.Tensor.align_as", "torch.Tensor.has_names")),
    ("complex", (
        "torch.view_as_complex*", "torch.view_as_real*", "torch.complex", "torch.polar",
        "torch.Tensor.cfloat", "torch.Tensor.cdouble", "torch.Tensor.chalf", "torch.Tensor.imag",
        "torch.imag", "torch.ComplexFloatStorage", "torch.ComplexDoubleStorage")),
    ("torchscript", (
        "torch.jit*", "torch.ScriptFunction", "torch.CompilationUnit", "torch.JITException", "torch.fork",
        "torch.wait", "torch.nn.functional.BroadcastingList*", "torch.nn.functional.boolean_dispatch",
        "torch.import_ir_module*", "torch.merge_type_from_type_comment", "torch.parse_*",
        "torch.unify_type_list", "torch.AVG", "torch.SUM", "torch.PRIVATE_OPS")),
)


def name_left_out_reason(path, obj):
    """The reason a public PyTorch name (``"torch.Tensor.cuda"``, with its object) is left
    out, or None."""
    import torch
    if path in DEPRECATED:
        return f"{REASONS['deprecated']}: \u201c{deprecation_evidence(path)}\u201d"
    if path.rsplit(".", 1)[1].startswith("is_"):
        return None             # a query (Tensor.is_cuda, is_sparse): a dense CPU tensor answers it
    for group, patterns in _NAME_PATTERNS:
        if any(fnmatch.fnmatchcase(path, pattern) for pattern in patterns):
            return REASONS[group]
    if isinstance(obj, torch.dtype):
        if obj.is_complex:
            return REASONS["complex"]
        if re.fullmatch(r"torch\.(q\w+|float8_\w+|float4_\w+|bits\w*|bit|u?int[1-7])", str(obj)):
            return REASONS["quantized"]
    if isinstance(obj, torch.layout) and obj is not torch.strided:
        return REASONS["nested"] if obj is torch.jagged else REASONS["sparse"]
    if isinstance(obj, torch.qscheme):
        return REASONS["quantized"]
    if type(obj).__name__ == "pybind11_type" and obj.__module__ in ("torch", "torch._C", "torch.jit"):
        return REASONS["torchscript"]
    return None


def left_out_reason(op):
    """The reason an OpInfo entry is left out before anything runs, or None."""
    if (getattr(op.op, "__module__", None) or "").startswith("torch.cuda"):
        return REASONS["devices"] + " (the CUDA jiterator)"
    if op.name.startswith("sparse.") or op.name == "to_sparse":
        return REASONS["sparse"]
    path = "torch." + op.name
    if path in DEPRECATED:
        return f"{REASONS['deprecated']}: \u201c{deprecation_evidence(path)}\u201d"
    return None


def dtype_left_out_reason(dtype):
    """The reason an entry is left out by the dtype its samples would have (an entry runs
    in float32, or in its own dtype when it has no float32 on the CPU), or None."""
    if dtype is None:
        return REASONS["devices"] + " (PyTorch's database gives it no CPU dtype)"
    if dtype.is_complex:
        return REASONS["complex"]
    return name_left_out_reason(str(dtype), dtype)


def complex_result_reason(result):
    """``REASONS["complex"]`` when PyTorch's result (a tensor or a nest of them) is complex."""
    import torch
    stack = [result]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor) and item.is_complex():
            return REASONS["complex"]
        if isinstance(item, (list, tuple)):
            stack.extend(item)
    return None


def module_left_out_reason(info):
    """The reason a ModuleInfo entry is left out, or None."""
    return name_left_out_reason("torch." + info.name, info.module_cls)


FAMILIES = ("pointwise unary", "pointwise binary", "reductions", "shape and views", "indexing and scatter",
            "linalg", "nn.functional: conv", "nn.functional: pool", "nn.functional: loss",
            "nn.functional: norm", "nn.functional: activation", "nn.functional: dropout",
            "nn.functional: other", "factories and random", "special", "fft", "misc", "modules")

_SPECIAL = {"digamma", "erf", "erfc", "erfinv", "i0", "igamma", "igammac", "lgamma", "mvlgamma", "polygamma",
            "sinc", "xlogy", "logit", "frexp", "ldexp", "nextafter"}
_LINALG = {"addbmm", "addmm", "addmv", "addr", "baddbmm", "bmm", "cholesky", "cholesky_inverse",
           "cholesky_solve", "cross", "det", "dot", "einsum", "geqrf", "inner", "kron", "logdet", "lu",
           "lu_solve", "lu_unpack", "matmul", "matrix_exp", "mm", "mv", "ormqr", "outer", "pinverse", "qr",
           "svd", "svd_lowrank", "pca_lowrank", "tensordot", "trace", "triangular_solve", "vdot",
           "__rmatmul__", "chain_matmul", "cdist", "dist", "norm", "renorm", "corrcoef", "cov"}
_FACTORIES = {"arange", "linspace", "logspace", "eye", "scalar_tensor", "full", "ones", "zeros", "empty",
              "empty_like", "empty_strided", "empty_permuted", "zeros_like", "ones_like", "full_like",
              "new_zeros", "new_ones", "new_empty", "new_empty_strided", "new_full", "rand_like", "randn",
              "randn_like", "randint", "randint_like", "multinomial", "normal", "bernoulli", "cauchy",
              "exponential", "geometric", "log_normal", "uniform"}
_INDEXING = {"gather", "scatter", "scatter_add", "scatter_reduce", "index_fill", "index_copy", "index_select",
             "index_add", "index_reduce", "index_put", "take", "take_along_dim", "put", "masked_fill",
             "masked_scatter", "masked_select", "__getitem__", "_unsafe_masked_index",
             "_unsafe_masked_index_put_accumulate", "nonzero", "nonzero_static", "argwhere", "where",
             "diagonal_scatter", "select_scatter", "slice_scatter", "as_strided_scatter", "_segment_reduce"}
_SHAPE = {"as_strided", "as_strided_copy", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes",
          "broadcast_tensors", "broadcast_to", "cat", "chunk", "unsafe_chunk", "_chunk_cat", "column_stack",
          "contiguous", "diag", "diag_embed", "diagflat", "diagonal", "diagonal_copy", "dsplit", "dstack",
          "expand", "expand_as", "expand_copy", "flatten", "flip", "fliplr", "flipud", "hsplit", "hstack",
          "movedim", "narrow", "narrow_copy", "permute", "permute_copy", "ravel", "repeat",
          "repeat_interleave", "reshape", "reshape_as", "roll", "rot90", "select", "slice", "split",
          "split_with_sizes", "split_with_sizes_copy", "unsafe_split", "squeeze", "squeeze_copy", "stack",
          "sum_to_size", "t", "t_copy", "T", "H", "mT", "mH", "tensor_split", "tile", "transpose",
          "transpose_copy", "tril", "triu", "unbind", "unbind_copy", "unflatten", "unfold", "unfold_copy",
          "unsqueeze", "unsqueeze_copy", "view", "view_as",
          "view_copy", "vsplit", "vstack", "alias_copy", "block_diag", "cartesian_prod", "combinations",
          "meshgrid", "resize_", "resize_as_", "conj", "conj_physical", "resolve_conj", "resolve_neg", "real"}
_REDUCTIONS = {"aminmax", "cummax", "cummin", "cumprod", "cumsum", "logcumsumexp", "logsumexp", "kthvalue",
               "max", "min", "median", "nanmedian", "mode", "quantile", "nanquantile", "std_mean", "var_mean",
               "cumulative_trapezoid", "trapezoid", "trapz", "diff", "gradient", "softmax", "log_softmax",
               "_softmax_backward_data", "torch.ops.aten._safe_softmax.default"}
_NN = (("conv", ("conv", "unfold", "fold")),
       ("pool", ("pool", "max_unpool")),
       ("loss", ("loss", "cross_entropy", "kl_div")),
       ("norm", ("norm", "normalize")),
       ("dropout", ("dropout",)),
       ("activation", ("relu", "elu", "gelu", "glu", "silu", "mish", "sigmoid", "tanh", "softmin", "softplus",
                       "softsign", "shrink", "threshold", "hardswish", "softmax")))


def _nn_family(name):
    short = name.rsplit(".", 1)[-1]
    for fam, words in _NN:
        if any(word in short for word in words):
            return f"nn.functional: {fam}"
    return "nn.functional: other"


def family(op):
    """The family an OpInfo entry is counted in (one of :data:`FAMILIES`)."""
    name, cls = op.name, type(op).__name__
    if name.startswith("linalg."):
        return "linalg"
    if name.startswith("fft.") or cls == "SpectralFuncInfo" or name in ("stft", "istft"):
        return "fft"
    if name.startswith("special.") or name in _SPECIAL:
        return "special"
    if name.startswith("nn.functional.") or name.startswith(("native_", "_native_", "_batch_norm",
                                                                 "_upsample", "grid_sampler",
                                                                 "max_pool2d_with", "native_dropout")):
        return _nn_family(name)
    if name in _FACTORIES or name.startswith("signal.windows."):
        return "factories and random"
    if name in _LINALG:
        return "linalg"
    if name in _INDEXING:
        return "indexing and scatter"
    if name in _SHAPE:
        return "shape and views"
    if cls == "BinaryUfuncInfo":        # before the reductions: max:binary is elementwise
        return "pointwise binary"
    if cls == "ReductionOpInfo" or name in _REDUCTIONS or name.startswith("masked."):
        return "reductions"
    if cls == "UnaryUfuncInfo":
        return "pointwise unary"
    return "misc"
