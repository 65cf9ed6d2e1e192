"""``Tensor``: a numpy array with the autograd state PyTorch keeps next to it.

PyTorch counterparts: ``torch/_tensor.py`` (``register_hook``,
``register_post_accumulate_grad_hook``), ``torch/csrc/autograd/variable.cpp``
(``retain_grad``, ``grad_fn``, the version counter). Tensor hooks live here: a tensor
keeps its hooks in one ordered dict; for a non-leaf the first registration hands that
dict to its ``grad_fn`` (the engine runs it when it visits the node); a leaf's
``AccumulateGrad`` reads the leaf's dict lazily, so leaf hooks outlive the node.

This file holds what autograd keeps on a tensor; the op surface (``shape``, ``view``,
``to``, arithmetic, reductions, ``matmul``, ...) is attached to the class by
``_tensor_methods.py``, as PyTorch's ``Tensor`` inherits its C++ methods from
``torch._C.TensorBase``.
"""
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from . import _tensor_class, _views, dtypes, grad_mode
from .autograd.allow_mutation import _inplace_observers as inplace_observers
from .autograd.graph import AccumulateGrad
from .utils.hooks import add_hook

# PyTorch checks that a tensor may require gradients in several places and words the
# error three ways; which one a caller gets depends on how it asked.
_NOT_FLOAT_MESSAGES = {
    "requires_grad": "only Tensors of floating point and complex dtype can require gradients",
    "requires_grad_": "only Tensors of floating point dtype can require gradients",
    "factory": "Only Tensors of floating point and complex dtype can require gradients",
}


def check_can_require_grad(array, asked_by="factory"):
    """Raise PyTorch's RuntimeError when a tensor over ``array`` may not require gradients
    (only floating point dtypes may). ``asked_by`` picks PyTorch's wording: the
    ``requires_grad`` setter, ``requires_grad_()``, or a factory (``tensor(...,
    requires_grad=True)``, ``ones``, ``Variable``, ``nn.Parameter``)."""
    if not dtypes.is_floating(array.dtype):
        raise RuntimeError(_NOT_FLOAT_MESSAGES[asked_by])


@_tensor_class.register             # the autograd core makes and recognises this class
class Tensor:
    """``torch.Tensor`` on top of a numpy array (``._array``)."""

    __module__ = "minigrad"         # prints as <class 'minigrad.Tensor'>

    # Every tensor has data and a version counter (shared by views). The autograd state
    # below starts as class-level defaults and becomes an instance attribute only when
    # set: most tensors never get hooks, and creating tensors is the hot path.
    __slots__ = ("_array", "_version_counter", "__weakref__", "__dict__")

    _requires_grad = False
    _grad_fn = None                 # the Node that made this tensor (None for leaves)
    _output_nr = 0                  # which output of grad_fn this tensor is
    _grad = None
    _backward_hooks = None          # OrderedDict of tensor hooks (register_hook)
    _post_accumulate_grad_hooks = None
    _retains_grad = False
    _grad_accumulator = None        # weakref to a leaf's AccumulateGrad
    _python_scalar = None           # the Python scalar of a "wrapped number"
    _base = None                    # the tensor this one is a view of (view ops only)
    _attr_version = None            # a view's version when its grad_fn was made (view ops only)
    _view_created_no_grad = None    # "no_grad"/"inference_mode": a view of a tensor requiring grad made
    #                                 there (it requires grad too), or a view of such a view

    def __init__(self, *args, device=None):
        """``torch.Tensor(...)``, the legacy constructor: ``Tensor([1, 2])`` copies data
        into float32, ``Tensor(2, 3)`` makes a float32 tensor of that size (PyTorch leaves
        it uninitialised; minigrad fills zeros), ``Tensor()`` is empty, ``Tensor(t)`` is
        an alias of ``t``. Use ``minigrad.tensor(...)`` for new code."""
        from ._legacy import new_legacy
        t = new_legacy(dtypes.float32, args, device, alias_any_dtype=True)
        self._array = t._array
        self._version_counter = t._version_counter
        if t.requires_grad:
            self._requires_grad = True
            self.grad_fn, self._output_nr = t.grad_fn, t._output_nr

    @classmethod
    def _wrap(cls, data, version_counter=None):
        """A new tensor around an existing array (no copy, no graph)."""
        t = object.__new__(cls)
        t._array = data
        if version_counter is None:
            version_counter = grad_mode.new_version_counter()
        t._version_counter = version_counter
        return t

    @property
    def grad_fn(self):
        """The node that made this tensor (None for a leaf).

        For a view, as in PyTorch (``VariableHooks::grad_fn``): when the shared memory was
        changed in place since the node was made (the version counter moved), the old
        node describes data that is gone, so a new one is made from the base,
        ``AsStridedBackward0`` (see ``_views.py``)."""
        if self._attr_version is not None and self._attr_version != self._version_counter[0]:
            return self._regenerate_grad_fn()
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    def _regenerate_grad_fn(self):
        from ._views import as_strided_node
        if self._view_created_no_grad:      # PyTorch refuses to guess what it should be
            raise self._no_grad_view_error("its base or another view of its base has been modified inplace")
        self._attr_version = self._version_counter[0]
        base = self._base
        if self._grad_fn is None and not base.requires_grad:
            return self._grad_fn
        self._set_history(as_strided_node(self, base))
        return self._grad_fn

    def _no_grad_view_error(self, what):
        """PyTorch's error for a view made under ``no_grad`` (or ``inference_mode``) of a
        tensor that requires grad, or a view of such a view, once ``what`` happened to it
        with grad mode on: it cannot tell whether the change should be recorded."""
        made_in, now, block = (("no_grad mode", "with grad mode enabled", "no_grad")
                               if self._view_created_no_grad == "no_grad" else
                               ("inference mode", "in normal mode", "inference_mode"))
        node = self._grad_fn
        view = ("A view was created" if node is None else
                f"Output {self._output_nr} of {node.name().rstrip('0123456789')[:-len('Backward')]} "
                "is a view of a view which was created")
        return RuntimeError(
            f"{view} in {made_in} and {what} {now}. Given that this use case is ambiguous and "
            "error-prone, it is forbidden. You can clarify your code by moving both the view and "
            f"the inplace either both inside the {block} block (if you don't want the inplace to be "
            "tracked) or both outside (if you want the inplace to be tracked).")

    def _set_history(self, node):
        """Make ``node`` this tensor's ``grad_fn`` after an in-place change (PyTorch's
        ``set_gradient_edge`` + ``update_tensor_hooks_on_new_gradfn``): hooks registered
        so far stay with the old node, later ones go to the new one; ``retain_grad``
        moves to the new one."""
        old_node, old_nr = self._grad_fn, self._output_nr
        self._grad_fn, self._output_nr = node, 0
        self._requires_grad = True
        self._backward_hooks = None
        if self._retains_grad and old_node is not None:
            old_node._drop_retains_grad_hook(old_nr)
            node._set_retains_grad_hook(0, self)

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def data(self):
        """``Tensor.data``: this tensor's storage seen as a new tensor that autograd does
        not track: no ``grad_fn``, ``requires_grad=False`` and a version counter of its
        own, so in-place writes through it are invisible to autograd's checks (which is
        why PyTorch now recommends ``detach()``, which shares the version counter)."""
        return Tensor._wrap(self._array)

    @data.setter
    def data(self, value):
        """``x.data = y``: ``x`` now uses ``y``'s storage (shape and dtype included);
        its autograd state (``grad_fn``, hooks, version counter) stays as it was."""
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._array = value._array

    @property
    def _version(self):
        if self.is_inference():
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter[0]

    def is_inference(self):
        """``Tensor.is_inference()``: made inside ``inference_mode`` (see ``grad_mode``)."""
        return grad_mode.is_inference_counter(self._version_counter)

    @property
    def output_nr(self):
        """Which output of ``grad_fn`` this tensor is (0 for leaves)."""
        return self._output_nr

    @property
    def retains_grad(self):
        return self._retains_grad

    # --- requires_grad and .grad ----------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value:
            check_can_require_grad(self._array, "requires_grad")
        if value and self.is_inference() and not grad_mode.is_inference_mode_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is "
                               "not allowed.")
        # (a view made under no_grad requires grad while its base does, as in PyTorch)
        self._requires_grad = bool(value) or bool(self._view_created_no_grad and self._base.requires_grad)

    def requires_grad_(self, requires_grad=True):
        if requires_grad:
            check_can_require_grad(self._array, "requires_grad_")
        if not requires_grad and self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self):
        """The accumulated gradient (leaves, and non-leaves that called ``retain_grad``)."""
        if self.grad_fn is not None and not self._retains_grad and self.requires_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information.", UserWarning,
                stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                    f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are "
                    "the same size")
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{dtypes.CPP_NAMES[value.dtype.name]}' to "
                    f"a tensor with grad_dtype '{dtypes.SCALAR_TYPE_NAMES[self.dtype.name]}'. The gradient "
                    "must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match.")
        self._grad = value

    def _get_grad_accumulator(self):
        """This leaf's AccumulateGrad node, created on first use and held weakly (so
        node hooks registered on it vanish with it, as in PyTorch)."""
        if not self._requires_grad or self.grad_fn is not None or self._view_created_no_grad:
            return None         # (a view made under no_grad has none: its gradient goes nowhere)
        node = self._grad_accumulator() if self._grad_accumulator is not None else None
        if node is None:
            node = AccumulateGrad(self)
            self._grad_accumulator = weakref.ref(node)
        return node

    # --- tensor hooks ------------------------------------------------------------------
    def register_hook(self, hook):
        """``Tensor.register_hook(hook)``: ``hook(grad) -> Tensor | None``.

        Runs when the engine reaches the node that produces this tensor's gradient,
        once, with the summed gradient; several hooks run in registration order, each
        seeing the previous one's result. Returning a tensor replaces the gradient (same
        shape and dtype); None keeps it."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._backward_hooks is None:
            self._backward_hooks = OrderedDict()
            if self.grad_fn is not None:
                self.grad_fn._register_hook_dict(self)
        return add_hook(self._backward_hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``Tensor.register_post_accumulate_grad_hook(hook)``: ``hook(tensor) -> None``,
        run by AccumulateGrad right after ``.grad`` was updated (leaves only)."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = OrderedDict()
        return add_hook(self._post_accumulate_grad_hooks, hook)

    def retain_grad(self):
        """``Tensor.retain_grad()``: make a non-leaf keep its gradient in ``.grad``.

        The engine stores it after all tensor hooks of the node ran (so ``.grad`` is the
        hooked value), before the node's pre-hooks. A no-op for leaves."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        self.grad_fn._set_retains_grad_hook(self._output_nr, self)
        self._retains_grad = True

    def _store_retained_grad(self, grad):
        """What a retain_grad hook does: clone the first time, then add out of place."""
        if grad is None:
            return
        if self._grad is None:
            # clone() records CloneBackward0 under create_graph and is a plain copy otherwise
            self._grad = grad.clone()
        else:
            self._grad = self._grad + grad

    # --- autograd entry points ----------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """``Tensor.backward``: see :func:`minigrad.autograd.backward`."""
        from . import autograd
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        return Tensor._wrap(self._array, self._version_counter)

    def detach_(self):
        self.grad_fn = None
        self.requires_grad = False
        return self

    # --- in-place ops ---------------------------------------------------------------------
    def _check_inplace(self, others=()):
        """PyTorch's ``check_inplace`` (and ``handle_view_on_rebase`` for views), in its
        order: only when grad mode is on and something involved requires grad."""
        from ._views import OVERLAP_MESSAGE, has_internal_overlap
        if not self._array.flags.writeable and has_internal_overlap(self._array):
            raise RuntimeError(OVERLAP_MESSAGE)
        if not grad_mode.is_grad_enabled():
            return
        if self._view_created_no_grad:
            raise self._no_grad_view_error("is being modified inplace")
        if not (self.requires_grad or any(o.requires_grad for o in others)):
            return
        view = self.__dict__.get("_custom_function_view")
        if view is not None and self.requires_grad:
            raise RuntimeError(
                f"Output {view[1]} of {view[0]} is a view and is being modified inplace. This view "
                "was created inside a custom Function (or because an input was returned as-is) and "
                "the autograd logic to handle view+inplace would override the custom backward "
                "associated with the custom Function, leading to incorrect gradients. This behavior "
                "is forbidden. You can fix this by cloning the output of the custom Function.")
        base = self._base
        if base is not None and self.requires_grad and base.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        if self.requires_grad and self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")

    def _inplace(self, compute, others=()):
        """Write ``compute(source)`` into this tensor's own buffer.

        When a graph is recorded, ``source`` is a copy standing for the value before
        the write (so the new node saves the right value, as PyTorch's ``original_self``)
        and the tensor gets the new node as its ``grad_fn``. As in PyTorch, tensor hooks
        registered earlier stay with the old node; ``retain_grad`` moves to the new one.

        On a view (``self._base`` set), the base's history is rewritten instead: its new
        node is ``CopySlices`` around the op's node, and the view's node is regenerated
        from it (``_views.py``, PyTorch's ``rebase_history``)."""
        others = tuple(o for o in others if isinstance(o, Tensor))
        self._check_inplace(others)
        self._notify_inplace()
        recording = grad_mode.is_grad_enabled() and (
            self.requires_grad or any(o.requires_grad for o in others))
        source = self
        if recording:
            source = Tensor._wrap(self._array.copy())
            source._requires_grad = self.requires_grad
            source.grad_fn, source._output_nr = self.grad_fn, self._output_nr
        out = compute(source)
        np.copyto(self._array if self._array.flags.writeable else _views.writable(self._array),
                  out._array, casting="unsafe")
        self._version_counter[0] += 1
        if recording and out.grad_fn is not None:
            self._rebase_history(out.grad_fn)
        return self

    def _rebase_history(self, node):
        """``node`` (an in-place op's, or a custom Function's that marked this tensor
        dirty) becomes this tensor's ``grad_fn``; on a view, the base's history is
        rewritten instead (PyTorch's ``rebase_history``)."""
        if self._base is not None and self._attr_version is not None:
            from ._views import rebase_history
            rebase_history(self, node)
        else:
            self._set_history(node)

    def _notify_inplace(self):
        for observer in inplace_observers:
            observer(self)

    def _is_view(self):
        """``Tensor._is_view()``: True for the output of a view op (``view``, a basic
        slice, ``transpose``, ``expand``, ...); ``._base`` is then the viewed tensor.
        ``detach()`` and ``.data`` share storage but are not views, as in PyTorch."""
        return self._base is not None


from . import _tensor_methods  # noqa: E402,F401 (attaches the op surface to Tensor, which it needs defined)
