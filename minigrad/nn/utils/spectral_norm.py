"""Spectral normalization by a forward pre-hook (``torch/nn/utils/spectral_norm.py``).

``spectral_norm(module)`` keeps the parameter as ``weight_orig``, two buffers ``weight_u``
and ``weight_v`` (estimates of the first singular vectors, started from random normal
vectors) and a forward pre-hook, a :class:`SpectralNorm` object, that sets
``module.weight = weight_orig / sigma`` before every forward, where
``sigma = u . (W v)`` estimates the largest singular value. In training mode the hook
first runs ``n_power_iterations`` steps of power iteration under ``no_grad``, updating
the buffers in place; in eval mode it reuses them.

Two state-dict hooks come with it, as in PyTorch: saving records the version of this
layout in the state dict's metadata (``{"spectral_norm": {"weight.version": 1}}``), and
loading a state dict without that version (saved before PyTorch 1.0: ``weight`` itself,
no ``weight_v``) rebuilds ``weight_v`` from ``weight_orig``, ``weight`` and ``weight_u``.

Where minigrad differs: the buffers start from minigrad's random generator (copy values
into ``weight_u``/``weight_v`` to compare with PyTorch).
"""
import numpy as np

from ... import _tensor, grad_mode as _grad_mode
from ..parameter import Parameter as _Parameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


def _normalize(x, eps):
    """``F.normalize(x, dim=0, eps=eps)`` of a vector: ``x / max(||x||, eps)``."""
    return x / x.norm().clamp(min=eps)


class SpectralNorm:
    """The forward pre-hook ``spectral_norm`` registers (``torch.nn.utils.spectral_norm.SpectralNorm``)."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix whose rows run along ``dim``."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with _grad_mode.no_grad():
                for _ in range(self.n_power_iterations):
                    # in place, as PyTorch's normalize(..., out=v): the buffers are updated
                    v.copy_(_normalize(weight_mat.t().matmul(u), self.eps))
                    u.copy_(_normalize(weight_mat.matmul(v), self.eps))
                u, v = u.clone(), v.clone()     # the buffers may change before backward
        sigma = u.matmul(weight_mat.matmul(v))          # dot(u, mv(W, v))
        return weight / sigma

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        """The ``v`` with ``u = normalize(W v)`` whose ``u . W v`` is ``target_sigma``
        (``pinv(W^T W) W^T u``, rescaled), for a pre-1.0 checkpoint that saved no ``v``."""
        w = weight_mat._array.astype(np.float64)
        v = np.linalg.pinv(w.T @ w) @ w.T @ u._array.astype(np.float64)
        v *= float(target_sigma) / float(u._array @ (w @ v))
        return _tensor.Tensor._wrap(v.astype(weight_mat._array.dtype))

    def remove(self, module):
        with _grad_mode.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, _Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        from ..._creation import empty
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with _grad_mode.no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = _normalize(empty(h, dtype=weight.dtype).normal_(0, 1), fn.eps)
            v = _normalize(empty(w, dtype=weight.dtype).normal_(0, 1), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Loads a state dict saved before PyTorch 1.0 (no version in its metadata): ``weight``
    is dropped and ``weight_v`` solved from ``weight_orig``, ``weight`` and ``weight_u``."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if version is None and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v")) \
                and weight_key not in state_dict:
            return      # no metadata, but already this layout
        has_missing_keys = False
        for suffix in ("_orig", "", "_u"):
            if weight_key + suffix not in state_dict:
                has_missing_keys = True
                if strict:
                    missing_keys.append(weight_key + suffix)
        if has_missing_keys:
            return
        with _grad_mode.no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, state_dict[weight_key + "_u"],
                                                                   sigma)


class SpectralNormStateDictHook:
    """Records ``{"spectral_norm": {"<name>.version": 1}}`` in the module's state-dict metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """``torch.nn.utils.spectral_norm(module, name="weight", n_power_iterations=1,
    eps=1e-12, dim=None)``: ``dim`` defaults to 0 (1 for transposed convolutions, which
    minigrad does not have). Returns the module."""
    SpectralNorm.apply(module, name, n_power_iterations, 0 if dim is None else dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """``torch.nn.utils.remove_spectral_norm``: the hooks and buffers go; ``name`` is a
    parameter again, holding ``weight_orig / sigma`` from the current ``u`` and ``v``.

    As in PyTorch 2.13, the load-state-dict pre-hook stays: it is stored wrapped, so the
    ``isinstance`` test below misses it, and loading a plain state dict afterwards
    reports ``weight_orig`` and ``weight_u`` missing."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for hooks, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        for key, hook in hooks.items():
            if isinstance(hook, kind) and hook.fn.name == name:
                del hooks[key]
                break
    return module
