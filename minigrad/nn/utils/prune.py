"""Pruning: zeroing parts of a parameter through a mask (``torch.nn.utils.prune``).

Pruning ``module.weight`` rearranges the module, with PyTorch's names:

- the Parameter moves to ``module.weight_orig`` (still the one the optimizer updates);
- the mask (1 = kept, 0 = pruned, the parameter's dtype) is the buffer ``weight_mask``;
- ``module.weight`` becomes a plain attribute, ``weight_mask * weight_orig``, so
  gradients reach ``weight_orig`` through a ``MulBackward0`` and are zero where pruned;
- the pruning method object itself is registered as a **forward pre-hook**: every call
  of the module first recomputes ``module.weight`` from the current ``weight_orig`` and
  mask (``module._forward_pre_hooks`` holds it; it is callable as ``hook(module, args)``).

Pruning the same parameter again composes: the hook becomes a :class:`PruningContainer`
and the new method only looks at the units the previous masks kept, so ``amount`` is a
fraction (or count) of the *remaining* units. :func:`remove` makes the pruning
permanent: ``weight`` is a Parameter again, holding the masked values.

``amount``: an int is a number of units, a float in [0, 1] a fraction of them (rounded
to the nearest int, Python's ``round``).
"""
import numbers
from abc import ABC as _ABC, abstractmethod as _abstractmethod
from collections.abc import Iterable as _Iterable

import numpy as np

from ... import _creation
from ..._tensor import Tensor as _Tensor
from .convert_parameters import parameters_to_vector as _parameters_to_vector

__all__ = [
    "BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
    "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
    "l1_unstructured", "random_structured", "ln_structured", "global_unstructured",
    "custom_from_mask", "remove", "is_pruned",
]


def _ones_like(t):
    return _Tensor._wrap(np.ones_like(t._array))


def _fresh(t):
    """A contiguous copy of ``t`` (no graph): a mask that can be changed in place."""
    return _Tensor._wrap(np.array(t._array, order="C"))


def _smallest(values, k):
    """Flat indices of the ``k`` smallest entries of ``values`` (a numpy array). Ties go
    to the lowest index (a stable sort); PyTorch's ``topk`` picks among ties in an
    order that depends on its selection algorithm (see :class:`L1Unstructured`)."""
    if isinstance(k, bool):     # amount=True: an Integral to Python, but not to topk
        raise TypeError("topk(): argument 'k' must be int, not bool")
    return np.argsort(values.ravel(), kind="stable")[:k]


class BasePruningMethod(_ABC):
    """``torch.nn.utils.prune.BasePruningMethod``. A subclass sets ``PRUNING_TYPE``
    (``"unstructured"``, ``"structured"`` with a ``dim`` attribute, or ``"global"``) and
    implements :meth:`compute_mask`; :meth:`apply` does the rest. An applied method
    knows its parameter's name (``_tensor_name``)."""

    def __call__(self, module, inputs):
        # The forward pre-hook: refresh the pruned tensor before every forward.
        setattr(module, self._tensor_name, self.apply_mask(module))

    @_abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for tensor ``t`` (the importance scores), given the mask so far
        (``default_mask``, same shape as ``t``)."""

    def apply_mask(self, module):
        """``<name>_mask * <name>_orig`` of ``module`` (the mask in the parameter's dtype)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, composing with any
        pruning already on that parameter; returns the method (or container) that is
        now the module's pre-hook. ``importance_scores`` (same shape as the parameter)
        replace its values when choosing what to prune."""
        method = _method_for(cls, module, name, args, kwargs)
        current = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != current.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {current.shape}")
        else:
            importance_scores = current
        first_time = not isinstance(method, PruningContainer)
        if first_time:
            # The Parameter moves to <name>_orig; <name> will be a computed attribute.
            module.register_parameter(name + "_orig", current)
            del module._parameters[name]
            default_mask = _ones_like(current)
        else:
            default_mask = _fresh(getattr(module, name + "_mask").detach())
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_time:      # put the parameter back where it was
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes for it (no module involved)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    "importance_scores should have the same shape as tensor t, got "
                    f"{importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else _ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``<name>`` is the ``<name>_orig`` Parameter again,
        its data now the masked values; ``<name>_orig`` and ``<name>_mask`` are gone.
        (The caller removes the pre-hook; see :func:`remove`.)"""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        pruned = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = pruned.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _method_for(cls, module, name, args, kwargs):
    """The method to install for ``module.<name>``: a new ``cls`` instance, folded into
    a container with the pruning already there (whose pre-hook is taken off: the
    result is registered again by ``apply``)."""
    previous = [(key, hook) for key, hook in module._forward_pre_hooks.items()
                if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(previous) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of "
                             f"module {module}. Use a PruningContainer.")
    for key, _ in previous:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if previous:
        old = previous[0][1]
        if isinstance(old, PruningContainer):
            old.add_pruning_method(method)
            method = old
        else:
            container = PruningContainer(old)
            container.add_pruning_method(method)
            method = container
    return method


class PruningContainer(BasePruningMethod):
    """``torch.nn.utils.prune.PruningContainer``: the pruning methods applied in turn to
    one parameter. Its mask is the previous mask with the *last* method applied to the
    part still kept: the kept entries (unstructured), the kept slices along the
    method's ``dim`` (structured), or everything (global)."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method`` (it must prune the same parameter name)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        mask = default_mask
        new_mask = mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            region = mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have '
                                     "the attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            kept = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            region = tuple(kept if d == dim else slice(None) for d in range(n_dims))
        elif kind == "global":
            region = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[region], default_mask=mask[region])
        new_mask[region] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """``prune.Identity``: the mask stays all ones (a reparametrisation with nothing
    pruned)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Prune the ``amount`` individual entries with the lowest ``_scores`` (shared by
    ``RandomUnstructured`` and ``L1Unstructured``, which differ only in the scores)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        size = t.numel()
        k = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(k, size)
        mask = _fresh(default_mask)
        if k != 0:
            mask._array.reshape(-1)[_smallest(self._scores(t, size), k)] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """``prune.RandomUnstructured(amount)``: prune ``amount`` entries chosen uniformly at
    random, with minigrad's generator (``manual_seed``): the count is PyTorch's, the
    chosen entries are not (PyTorch draws from its own generator)."""

    def _scores(self, t, size):
        return -_creation._rng().random(size)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """``prune.L1Unstructured(amount)``: prune the ``amount`` entries of smallest absolute
    value. Among equal absolute values minigrad prunes the lowest flat indices first;
    PyTorch's ``topk(largest=False)`` may pick other ones among the ties (the pruned
    *values* are equal; the mask can differ). Without ties the masks are identical."""

    def _scores(self, t, size):
        return np.abs(t._array)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class _Structured(BasePruningMethod):
    """Prune ``amount`` whole slices along ``dim``, keeping the ones ``_kept`` names
    (shared by ``RandomStructured`` and ``LnStructured``)."""

    PRUNING_TYPE = "structured"

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        channels = t.shape[self.dim]
        k = _compute_nparams_toprune(self.amount, channels)
        _validate_pruning_amount(k, channels)
        if k == 0:
            return default_mask
        return _channel_mask(t, self.dim, self._kept(t, channels, k), default_mask)


class RandomStructured(_Structured):
    """``prune.RandomStructured(amount, dim=-1)``: prune ``amount`` whole slices along
    ``dim`` chosen at random (minigrad's generator)."""

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def _kept(self, t, channels, k):
        pruned = _smallest(-_creation._rng().random(channels), k)
        return np.setdiff1d(np.arange(channels), pruned)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_Structured):
    """``prune.LnStructured(amount, n, dim=-1)``: prune the ``amount`` slices along
    ``dim`` of smallest ``n``-norm (``n``: a number, ``inf``, ``-inf`` or ``"fro"``)."""

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def _kept(self, t, channels, k):
        return np.sort(_smallest(-_compute_norm(t, self.n, self.dim), channels - k))

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """``prune.CustomFromMask(mask)``: the given mask (times the previous one)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _channel_mask(t, dim, kept, default_mask):
    """Ones on the ``kept`` slices along ``dim``, zeros elsewhere, times ``default_mask``."""
    mask = np.zeros(t._array.shape, dtype=t._array.dtype)
    index = [slice(None)] * t.dim()
    index[dim] = kept
    mask[tuple(index)] = 1
    return _Tensor._wrap(mask * default_mask._array.astype(mask.dtype))


def _compute_norm(t, n, dim):
    """The ``n``-norm of each slice of ``t`` along ``dim`` (a numpy vector)."""
    a = np.abs(np.moveaxis(t._array.astype(np.float64), dim, 0).reshape(t.shape[dim], -1))
    if n == "fro":
        n = 2
    if n == float("inf"):
        return a.max(axis=1)
    if n == float("-inf"):
        return a.min(axis=1)
    if n == 0:
        return np.count_nonzero(a, axis=1).astype(np.float64)
    return (a ** n).sum(axis=1) ** (1.0 / n)


# --- the functional interface --------------------------------------------------------------

def identity(module, name):
    """``prune.identity``: reparametrise ``module.<name>`` with an all-ones mask."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """``prune.random_unstructured``: see :class:`RandomUnstructured`."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """``prune.l1_unstructured``: see :class:`L1Unstructured`."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """``prune.random_structured``: see :class:`RandomStructured`."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """``prune.ln_structured``: see :class:`LnStructured`."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """``prune.custom_from_mask``: prune ``module.<name>`` with a given mask."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """``prune.global_unstructured``: one unstructured method (e.g. ``L1Unstructured``,
    ``amount=...``) applied to several ``(module, name)`` pairs seen as one vector, so
    the amount is shared out by importance rather than per tensor. Each parameter then
    gets its slice of the mask through :func:`custom_from_mask`."""
    if not isinstance(parameters, _Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    scores = _parameters_to_vector([importance_scores.get((m, n), getattr(m, n))
                                   for m, n in parameters])
    default_mask = _parameters_to_vector([getattr(m, n + "_mask", _ones_like(getattr(m, n)))
                                         for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        n = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + n].view_as(param))
        pointer += n


def remove(module, name):
    """``prune.remove``: make the pruning of ``module.<name>`` permanent and take its
    pre-hook off (see :meth:`BasePruningMethod.remove`)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    """``prune.is_pruned``: whether ``module`` or any submodule has a pruning pre-hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())


# --- validation -------------------------------------------------------------------------------

def _validate_pruning_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _validate_pruning_amount(amount, tensor_size):
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={tensor_size}")


def _validate_structured_pruning(t):
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size):
    return amount if isinstance(amount, numbers.Integral) else round(amount * tensor_size)


def _validate_pruning_dim(t, dim):
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")
