"""Which OpInfo entries the sweep leaves out (and why), and the family each entry belongs to.

Left out is only what a CPU engine on numpy cannot mean, by a rule with one reason per
group (never "not yet"):

- ``devices``: entries that exist to test a device's kernels (the CUDA jiterator);
- ``sparse storage``: sparse layouts (``to_sparse``, ``torch.sparse.*``);
- ``complex``: entries whose result on float32 samples is complex (``view_as_complex``,
  ``fft.fft``, ``linalg.eig``, ``cfloat``): minigrad has no complex dtypes, so no
  complex-valued results and no complex-valued autograd. This rule needs PyTorch's
  result, so the sweep applies it (:func:`complex_result_reason`);
- ``deprecated``: functions whose PyTorch docstring says they are deprecated
  (``torch.cholesky is deprecated in favor of torch.linalg.cholesky``); each claim is
  checked against the installed PyTorch's docstring by :func:`deprecation_note`, so a
  listed name whose docs stop saying it fails loudly.

The same groups serve ``tools/ops_inventory.py`` for PyTorch's public names, with the
groups that only names have (TorchScript internals, quantized, named tensors, nested
storage).

Families (:func:`family`) sort entries for the people adding ops: PyTorch's own OpInfo
classes (``UnaryUfuncInfo``, ``BinaryUfuncInfo``, ``ReductionOpInfo``,
``SpectralFuncInfo``) and the entry's namespace first, then a few name lists.
"""
import re

__all__ = ["DEPRECATED", "FAMILIES", "REASONS", "complex_result_reason", "deprecation_note",
           "family", "left_out_reason", "module_left_out_reason"]

REASONS = {
    "devices": "devices: tests a GPU kernel path (CUDA jiterator); minigrad runs on the CPU only",
    "sparse": "sparse storage: sparse layouts need a storage model minigrad (dense numpy arrays) "
              "does not have",
    "complex": "complex: the result is complex-valued; minigrad has no complex dtypes, so no "
               "complex-valued results or autograd",
    "deprecated": "deprecated: PyTorch's docs say so",
}

# OpInfo entry names (without variant) whose PyTorch docstring says the function is
# deprecated. torch.norm's docs say so too, but real code calls it and issue 32 names it
# among what must work, so its entries stay in the count.
DEPRECATED = {
    "cholesky": "torch.cholesky",
    "lu": "torch.lu",
    "lu_solve": "torch.lu_solve",
    "qr": "torch.qr",
    "svd": "torch.svd",
    "triangular_solve": "torch.triangular_solve",
    "nn.functional.upsample_bilinear": "torch.nn.functional.upsample_bilinear",
    "nn.functional.upsample_nearest": "torch.nn.functional.upsample_nearest",
}


def deprecation_note(path):
    """The sentence of ``path``'s PyTorch docstring that calls the function deprecated;
    raises LookupError when the docstring has none (the claim no longer holds)."""
    import importlib
    module_name, _, name = path.rpartition(".")
    obj = getattr(importlib.import_module(module_name), name)
    doc = " ".join((obj.__doc__ or "").split())
    short = name.rsplit(".", 1)[-1]
    pattern = re.compile(rf"((?::func:`)?(?:torch\.)?[\w.]*\b{re.escape(short)}`? is deprecated"
                         rf"|This function is deprecated)[^.]*\.")
    match = pattern.search(doc)
    if match is None:
        raise LookupError(f"{path}: its docstring does not say it is deprecated; take it out of "
                          "opinfo_groups.DEPRECATED")
    return match.group(0)


def left_out_reason(op):
    """The reason an OpInfo entry is left out before anything runs, or None."""
    if (getattr(op.op, "__module__", None) or "").startswith("torch.cuda"):
        return REASONS["devices"]
    if op.name.startswith("sparse.") or op.name == "to_sparse":
        return REASONS["sparse"]
    if op.name in DEPRECATED:
        deprecation_note(DEPRECATED[op.name])
        return f"{REASONS['deprecated']} ({DEPRECATED[op.name]})"
    return None


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
    """The reason a ModuleInfo entry is left out, or None (no module group applies yet)."""
    return None


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
