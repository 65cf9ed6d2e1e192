"""Checks for lesson 08 (module hooks).

Expected values come from minigrad itself without hooks: output shapes by running a
``Sequential``'s children one by one, Grad-CAM gradients by cutting the model at the
layer and differentiating w.r.t. a detached copy of its output, reference gradients
from a plain backward pass.
"""
import numpy as np

from .. import _creation, models, nn
from ..autograd import grad as autograd_grad
from ..grad_mode import no_grad
from ..nn.modules import module as module_mod
from . import Result, compare_values, run_check

__all__ = ["check_record_output_shapes", "check_grad_cam", "check_gradient_reversal"]

_HOOK_DICTS = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks")
_GLOBAL_DICTS = ("_global_forward_pre_hooks", "_global_forward_hooks",
                 "_global_backward_pre_hooks", "_global_backward_hooks")


def _hooks_left(model):
    """How many module hooks are still registered on ``model`` and its submodules."""
    return sum(len(getattr(m, d, {})) for m in model.modules() for d in _HOOK_DICTS)


def _global_hook_count():
    return sum(len(getattr(module_mod, d)) for d in _GLOBAL_DICTS)


def _test_images(n):
    images, _ = models.load_split("test")
    return images[:n]


def check_record_output_shapes(record_output_shapes):
    """``record_output_shapes(model, x)`` returns ``{child name: list(output shape)}``
    and leaves no hook behind."""
    def body():
        cases = [("make_cnn()", models.make_cnn(seed=0), _test_images(3)),
                 ("make_mlp(hidden=32)", models.make_mlp(hidden=32, seed=0), _test_images(2))]
        globals_before = _global_hook_count()
        for label, model, x in cases:
            model.eval()
            expected, h = {}, x
            with no_grad():
                for name, child in model.named_children():
                    h = child(h)
                    expected[name] = list(h.shape)
            got = record_output_shapes(model, x)
            if not isinstance(got, dict):
                return Result(False, f"for {label} you returned {type(got).__name__}; return a dict "
                                     "{child name: shape}.")
            missing = [k for k in expected if k not in got]
            extra = [k for k in got if k not in expected]
            if missing:
                return Result(False, f"for {label} the names {missing} are missing (expected the "
                                     f"names of named_children(): {list(expected)}).")
            if extra:
                return Result(False, f"for {label} you returned extra names {extra}: only the "
                                     f"children, {list(expected)}.")
            for name, shape in expected.items():
                try:
                    got_shape = [int(s) for s in got[name]]
                except TypeError:
                    return Result(False, f"for {label}, child {name!r}: {got[name]!r} is not a shape "
                                         "(use list(out.shape)).")
                if got_shape != shape:
                    return Result(False, f"for {label}, child {name!r} "
                                         f"({type(model[int(name)]).__name__}): shape {got_shape}, "
                                         f"expected {shape}.")
            left = _hooks_left(model)
            if left:
                return Result(False, f"the shapes are right, but {left} hook(s) are still registered "
                                     f"on {label}: keep the handles and call remove() on each.")
        if _global_hook_count() != globals_before:
            return Result(False, "the shapes are right, but a global module hook was left behind: "
                                 "remove it with its handle.")
        return Result(True, "every child's output shape, and no hook left behind.")
    before = {d: set(getattr(module_mod, d)) for d in _GLOBAL_DICTS}
    try:
        return run_check("record_output_shapes", body)
    finally:
        # global hooks left behind would fire on every module of the rest of the notebook
        for d, keep in before.items():
            registry = getattr(module_mod, d)
            for key in [k for k in registry if k not in keep]:
                del registry[key]


def _reference_cam(model, cut, image, target):
    """Grad-CAM without hooks: run the model up to ``model[cut]``, detach that output,
    differentiate the class score w.r.t. it."""
    children = list(model.children())
    h = image[None]
    with no_grad():
        for child in children[:cut + 1]:
            h = child(h)
    A = h.detach().requires_grad_(True)
    out = A
    for child in children[cut + 1:]:
        out = child(out)
    (dA,) = autograd_grad(out[0, target], A)
    alpha = dA[0]._array.mean(axis=(1, 2))
    cam = np.maximum((alpha[:, None, None] * A._array[0]).sum(0), 0)
    top = cam.max()
    return cam / top if top > 0 else cam, (alpha[:, None, None] * A._array[0]).sum(0)


def check_grad_cam(grad_cam):
    """``grad_cam(model, layer, image, target)`` returns the normalised ``[H, W]`` map."""
    def body():
        model = models.make_cnn(seed=0)
        model.eval()
        images, _ = models.load_split("test")
        for k, target in [(0, 0), (1, 3), (2, 7)]:
            expected, raw = _reference_cam(model, 2, images[k], target)
            got = grad_cam(model, model[2], images[k], target)
            if got is None:
                return Result(False, "you returned None; return the heat map as an [H, W] array.")
            got_a = np.asarray(got.detach().numpy() if hasattr(got, "detach") else got,
                               dtype=np.float64)
            where = f"image {k}, class {target}"
            if got_a.shape != expected.shape:
                hint = ""
                if got_a.ndim == 3 and got_a.shape[0] == 16:
                    hint = (" 16 maps: that is the layer's *input* (grad_input / args). Use the "
                            "gradient w.r.t. its output (grad_output[0]).")
                elif got_a.ndim >= 3:
                    hint = " Sum the weighted maps over the channel dimension."
                return Result(False, f"{where}: shape {list(got_a.shape)}, expected "
                                     f"{list(expected.shape)}.{hint}")
            if (got_a < -1e-6).any():
                return Result(False, f"{where}: your map has negative values; apply ReLU to the "
                                     "weighted sum (Grad-CAM keeps positive evidence only).")
            if expected.max() > 0 and not np.isclose(got_a.max(), 1.0, atol=1e-4):
                raw_pos = np.maximum(raw, 0)
                if np.allclose(got_a, raw_pos, rtol=1e-3, atol=1e-6):
                    return Result(False, f"{where}: right map, but not normalised: divide by its "
                                         "maximum.")
                return Result(False, f"{where}: the maximum of your map is {got_a.max():.4g}, "
                                     "expected 1 (normalise by the max).")
            r = compare_values(f"the heat map for {where}", got_a, expected, atol=1e-4, rtol=1e-3)
            if not r and np.allclose(got_a, _reference_cam(model, 1, images[k], target)[0],
                                     atol=1e-4, rtol=1e-3):
                return Result(False, f"{where}: this is Grad-CAM of the layer's *input* (args[0], "
                                     "grad_input). Use its output and the gradient w.r.t. the "
                                     "output (grad_output[0]).")
            if not r:
                return Result(False, r.message + " Weight each map by the *mean* of its gradient "
                                                 "over the spatial positions (dims 1, 2).")
            left = _hooks_left(model)
            if left:
                return Result(False, f"the map is right, but {left} hook(s) are still registered: "
                                     "remove them (in a finally: block).")
        return Result(True, "the same heat maps as a computation without hooks, and no hook left.")
    return run_check("grad_cam", body)


def _reversal_net():
    _creation.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 2))
    x = _creation.randn(5, 4)
    return net, x


def _grads(net, x):
    net.zero_grad()
    (net(x) ** 2).sum().backward()
    return {name: p.grad._array.copy() for name, p in net.named_parameters()}


def check_gradient_reversal(add_gradient_reversal):
    """``add_gradient_reversal(module, lam)`` multiplies the gradients leaving ``module``
    towards its inputs by ``-lam``; the module's own parameters are unaffected."""
    def body():
        lam = 0.5
        net, x = _reversal_net()
        ref = _grads(net, x)
        handle = add_gradient_reversal(net[2], lam)
        if not hasattr(handle, "remove"):
            return Result(False, f"return the handle of the hook you registered (you returned "
                                 f"{handle!r}).")
        got = _grads(net, x)
        # the module itself and what comes after it: unchanged
        for name in ("2.weight", "2.bias", "4.weight", "4.bias"):
            if not np.allclose(got[name], ref[name], rtol=1e-4, atol=1e-6):
                if np.allclose(got[name], -lam * ref[name], rtol=1e-4, atol=1e-6):
                    return Result(False, f"{name} (the module's own parameter) got the reversed "
                                         "gradient too: you changed grad_output (a backward "
                                         "pre-hook), which flows into the module. Change "
                                         "grad_input in a full backward hook instead.")
                return Result(False, f"{name} (at or after the module) should keep its normal "
                                     "gradient, but it changed.")
        # what comes before it: times -lam
        for name in ("0.weight", "0.bias"):
            if np.allclose(got[name], ref[name], rtol=1e-4, atol=1e-6):
                return Result(False, f"{name} (before the module) kept its normal gradient: the "
                                     "gradient flowing to the module's input was not changed.")
            if np.allclose(got[name], lam * ref[name], rtol=1e-4, atol=1e-6):
                return Result(False, f"{name} got lam * grad: the sign is missing (-lam).")
            r = compare_values(f"the gradient of {name}", got[name], -lam * ref[name])
            if not r:
                return r
        handle.remove()
        again = _grads(net, x)
        if not all(np.allclose(again[n], ref[n], rtol=1e-4, atol=1e-6) for n in ref):
            return Result(False, "after handle.remove() the gradients are still changed: return the "
                                 "handle of the hook that does the reversal.")
        return Result(True, "layers before the module get -lam × gradient, the module and the "
                            "layers after it are untouched, and remove() undoes it.")
    return run_check("add_gradient_reversal", body)
