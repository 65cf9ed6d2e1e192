"""Checks for lesson 08 (module hooks).

* ``check_module_hook_order``: the learner predicts the order of every hook around one
  module's forward and backward; the check runs that pass on minigrad's real engine and
  explains the first miss.
* ``check_gradient_reversal``: reference gradients from a plain backward pass, on a
  ``Sequential``, on a module with two inputs and on a first layer whose input needs no
  gradient.
* ``check_grad_cam_pp``: Grad-CAM++ computed without hooks, by cutting the model at the
  layer and differentiating w.r.t. a detached copy of its output.

Checks print one verdict and never raise.
"""
import warnings

import numpy as np

from .. import _creation, models, nn
from ..autograd import grad as _autograd_grad
from ..grad_mode import no_grad as _no_grad
from . import Result as _Result
from . import compare_values as _compare_values
from . import unless_hooks_left as _unless_hooks_left
from . import judge_predicted_order as _judge_predicted_order
from . import run_check as _run_check
from . import watch_calls as _watch_calls

__all__ = ["check_module_hook_order", "check_gradient_reversal", "check_grad_cam_pp",
           "MODULE_HOOK_EVENTS"]

_HOOK_DICTS = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks")


def _hooks_left(model):
    """How many module hooks are still registered on ``model`` and its submodules."""
    return sum(len(getattr(m, d, {})) for m in model.modules() for d in _HOOK_DICTS)


# --- exercise 1: predict the order ---------------------------------------------------------------
#: the names the learner may use in the prediction, in alphabetical order (not the answer's)
MODULE_HOOK_EVENTS = ("backward pre-hook", "forward", "forward hook", "forward pre-hook",
                      "full backward hook", "tensor hook on out", "tensor hook on x")


def _module_pass():
    """The pass of exercise 1, logging MODULE_HOOK_EVENTS in the order they happen."""
    log = []

    class MulAdd(nn.Module):
        def forward(self, x, y):
            log.append("forward")
            return x * y + x

    m = MulAdd()
    m.register_forward_pre_hook(lambda mod, args: log.append("forward pre-hook"))
    m.register_forward_hook(lambda mod, args, out: log.append("forward hook"))
    m.register_full_backward_pre_hook(lambda mod, grad_output: log.append("backward pre-hook"))
    m.register_full_backward_hook(lambda mod, grad_input, grad_output:
                                  log.append("full backward hook"))
    x = _creation.tensor([1.0, 2.0], requires_grad=True)
    y = _creation.tensor([3.0, 4.0], requires_grad=True)
    x.register_hook(lambda g: log.append("tensor hook on x"))
    out = m(x, y)
    out.register_hook(lambda g: log.append("tensor hook on out"))
    (out * 2).sum().backward()
    return log


def _explain_module_order(got):
    pos = {name: i for i, name in enumerate(got)}

    def before(a, b):
        return a in pos and b in pos and pos[a] < pos[b]
    if before("forward", "forward pre-hook") or before("forward hook", "forward"):
        return ("Module.__call__ runs the forward pre-hooks, then forward, then the forward "
                "hooks (section 1).")
    if before("backward pre-hook", "forward hook") or before("tensor hook on x", "forward hook"):
        return "every backward hook runs during backward(), after the whole forward."
    if before("full backward hook", "backward pre-hook"):
        return ("the pre-hook sits on the outputs' identity node and sees grad_output, which "
                "backward reaches first; the full hook sits on the inputs' node, reached after "
                "the module's own nodes.")
    if before("backward pre-hook", "tensor hook on out"):
        return ("out is the output of the outputs' identity node: its tensor hook runs on out's "
                "gradient before that node runs, and the module's pre-hook is called by that "
                "node, so after the tensor hook.")
    if before("tensor hook on x", "full backward hook"):
        return ("x is a leaf: its tensor hook runs when x's AccumulateGrad node is reached, which "
                "is below the inputs' identity node that calls the full hook.")
    return None


def _module_pass_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _module_pass()


def check_module_hook_order(predict_module_hook_order):
    """``predict_module_hook_order()`` returns the events of exercise 1's pass in order,
    with the names of ``MODULE_HOOK_EVENTS``. It must predict, not run."""
    def body():
        return _judge_predicted_order(
            predict_module_hook_order, MODULE_HOOK_EVENTS, _module_pass_quietly,
            see="the next cell",
            each_once="each hook fires once in this pass (x's hook once, on the gradient "
                      "summed over both uses).",
            right="The tensor hook on the module's output runs before the module's backward "
                  "pre-hook, and a leaf's tensor hook after the full backward hook.",
            explain=lambda got, want: _explain_module_order(got))
    return _run_check("predict_module_hook_order", body)


def _reversal_net():
    _creation.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 2))
    x = _creation.randn(5, 4)
    return net, x


def _grads(net, x):
    net.zero_grad()
    (net(x) ** 2).sum().backward()
    return {name: p.grad._array.copy() for name, p in net.named_parameters()}


class _Mix(nn.Module):
    """A module with two inputs: ``a * w + b``."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(_creation.tensor([2.0, 3.0]))

    def forward(self, a, b):
        return a * self.w + b


def _reversal_edge_cases(add_gradient_reversal, lam):
    """A failure message for the module with two inputs or the first layer, or None."""
    # two inputs: both gradients reversed, the parameter's untouched
    mix = _Mix()
    handle = add_gradient_reversal(mix, lam)
    a = _creation.tensor([1.0, -1.0], requires_grad=True)
    b = _creation.tensor([0.5, 2.0], requires_grad=True)
    try:
        (mix(a, b) ** 2).sum().backward()
    except RuntimeError as exc:
        if "invalid number of grad_input" in str(exc):
            return ("on a module with two inputs (a * w + b) backward failed: " + str(exc) +
                    ". Return one entry per element of grad_input, not only grad_input[0].")
        raise
    finally:
        if hasattr(handle, "remove"):
            handle.remove()
    out = (a * mix.w + b).detach()
    want_a, want_b = -lam * 2 * out * mix.w.detach(), -lam * 2 * out
    want_w = 2 * out * a.detach()
    for name, got, want in (("a.grad", a.grad, want_a), ("b.grad", b.grad, want_b),
                            ("w.grad (the parameter)", mix.w.grad, want_w)):
        r = _compare_values(f"on a module with two inputs (a * w + b), {name}", got, want)
        if not r:
            return r.message + " Reverse every entry of grad_input, and only grad_input."
    # a first layer: its input needs no gradient, so grad_input is (None,)
    net, x = _reversal_net()
    ref = _grads(net, x)
    handle = add_gradient_reversal(net[0], lam)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # the full hook fires early, with a warning
            got = _grads(net, x)
    except TypeError as exc:
        return ("on the first layer (its input x needs no gradient) your hook raised TypeError: "
                f"{exc}. There grad_input is (None,): keep a None entry as None.")
    finally:
        if hasattr(handle, "remove"):
            handle.remove()
    for name in ref:
        if not np.allclose(got[name], ref[name], rtol=1e-4, atol=1e-6):
            return (f"on the first layer (nothing before it to reverse) {name} changed: the "
                    "reversal must leave every parameter's gradient alone.")
    return None


def check_gradient_reversal(add_gradient_reversal):
    """``add_gradient_reversal(module, lam)`` multiplies the gradients leaving ``module``
    towards its inputs by ``-lam``; the module's own parameters are unaffected."""
    def body():
        lam = 0.5
        net, x = _reversal_net()
        ref = _grads(net, x)
        handle = add_gradient_reversal(net[2], lam)
        if not hasattr(handle, "remove"):
            return _Result(False, f"return the handle of the hook you registered (you returned "
                                 f"{handle!r}).")
        got = _grads(net, x)
        # the module itself and what comes after it: unchanged
        for name in ("2.weight", "2.bias", "4.weight", "4.bias"):
            if not np.allclose(got[name], ref[name], rtol=1e-4, atol=1e-6):
                if np.allclose(got[name], -lam * ref[name], rtol=1e-4, atol=1e-6):
                    return _Result(False, f"{name} (the module's own parameter) got the reversed "
                                         "gradient too: you changed a gradient that flows into "
                                         "the module (grad_output in a backward pre-hook, a "
                                         "tensor hook on its output, or the deprecated "
                                         "register_backward_hook of section 4). Change grad_input "
                                         "in a full backward hook instead.")
                return _Result(False, f"{name} (at or after the module) should keep its normal "
                                     "gradient, but it changed.")
        # what comes before it: times -lam
        for name in ("0.weight", "0.bias"):
            if np.allclose(got[name], ref[name], rtol=1e-4, atol=1e-6):
                return _Result(False, f"{name} (before the module) kept its normal gradient: the "
                                     "gradient flowing to the module's input was not changed.")
            if np.allclose(got[name], lam * ref[name], rtol=1e-4, atol=1e-6):
                return _Result(False, f"{name} got lam * grad: the sign is missing (-lam).")
            r = _compare_values(f"the gradient of {name}", got[name], -lam * ref[name])
            if not r:
                return r
        handle.remove()
        again = _grads(net, x)
        if not all(np.allclose(again[n], ref[n], rtol=1e-4, atol=1e-6) for n in ref):
            return _Result(False, "after handle.remove() the gradients are still changed: return the "
                                 "handle of the hook that does the reversal.")
        problem = _reversal_edge_cases(add_gradient_reversal, lam)
        if problem:
            return _Result(False, f"right on a Sequential, but {problem}")
        return _Result(True, "layers before the module get -lam × gradient, the module and the "
                            "layers after it are untouched, with two inputs and on a first layer "
                            "too, and remove() undoes it.")
    return _run_check("add_gradient_reversal", body)


# --- exercise 3: Grad-CAM++ ---------------------------------------------------------------------
def _activations_and_grads(model, cut, image, target):
    """``A`` (the output of ``model[cut]``) and ``dA = d score / dA``, both [C, H, W] float64,
    without hooks: run the model up to the layer, detach, differentiate the rest."""
    children = list(model.children())
    h = image[None]
    with _no_grad():
        for child in children[:cut + 1]:
            h = child(h)
    A = h.detach().requires_grad_(True)
    out = A
    for child in children[cut + 1:]:
        out = child(out)
    (dA,) = _autograd_grad(out[0, target], A)
    return A.detach().numpy()[0].astype(np.float64), dA.numpy()[0].astype(np.float64)


def _normalised(cam):
    cam = np.maximum(cam, 0)
    top = cam.max()
    return cam / top if top > 0 else cam


def _cam_pp(A, g, relu_g=True):
    """The Grad-CAM++ map from activations and gradients ([C, H, W]); ``relu_g=False`` is
    a classic mistake (the weights use g instead of relu(g))."""
    g2, g3 = g ** 2, g ** 3
    denom = 2 * g2 + A.sum(axis=(1, 2))[:, None, None] * g3
    alpha = np.where(g != 0, g2 / np.where(denom != 0, denom, 1.0), 0.0)
    weights = (alpha * (np.maximum(g, 0) if relu_g else g)).sum(axis=(1, 2))
    return _normalised((weights[:, None, None] * A).sum(0))


def _reference_cam_pp(model, cut, image, target):
    return _cam_pp(*_activations_and_grads(model, cut, image, target))


def check_grad_cam_pp(grad_cam_pp):
    """``grad_cam_pp(model, layer, image, target)`` returns the normalised ``[H, W]``
    Grad-CAM++ map of ``layer`` for class ``target``."""
    def body():
        model = models.make_cnn(seed=0)
        model.eval()
        images, _ = models.load_split("test")
        for k, target in [(0, 0), (1, 3), (2, 7)]:
            A, g = _activations_and_grads(model, 2, images[k], target)
            expected = _cam_pp(A, g)
            plain = _normalised(((g.mean(axis=(1, 2)))[:, None, None] * A).sum(0))
            with _watch_calls([_reference_cam_pp, _cam_pp, _activations_and_grads]) as ran:
                got = grad_cam_pp(model, model[2], images[k], target)
            if ran:
                return _Result(False, "your function called the check's own reference "
                                     f"(minigrad.exercises.lesson08.{ran[0]}): compute the map "
                                     "yourself, with a forward hook and a backward hook on the "
                                     "layer.")
            if got is None:
                return _Result(False, "you returned None; return the heat map as an [H, W] array.")
            if isinstance(got, (tuple, list)):
                return _Result(False, f"you returned a {type(got).__name__} of {len(got)}; return "
                                     "the heat map alone, an [H, W] array (section 6's grad_cam "
                                     "also returns the class).")
            got_a = np.asarray(got.detach().numpy() if hasattr(got, "detach") else got,
                               dtype=np.float64)
            where = f"image {k}, class {target}"
            if got_a.shape != expected.shape:
                hint = (" Sum the weighted maps over the channel dimension." if got_a.ndim >= 3
                        else "")
                return _Result(False, f"{where}: shape {list(got_a.shape)}, expected "
                                     f"{list(expected.shape)}.{hint}")
            if np.isnan(got_a).any():
                return _Result(False, f"{where}: your map has NaN. Where the gradient is 0 the "
                                     "formula for alpha is 0/0: set alpha to 0 there "
                                     "(np.where(g != 0, ..., 0) or torch.where).")
            if (got_a < -1e-6).any():
                return _Result(False, f"{where}: your map has negative values; apply ReLU to the "
                                     "weighted sum of the maps.")
            if np.allclose(got_a, expected, atol=1e-4, rtol=1e-3):
                continue
            if np.allclose(got_a, plain, atol=1e-4, rtol=1e-3):
                return _Result(False, f"{where}: that is plain Grad-CAM (each map weighted by its "
                                     "mean gradient). Grad-CAM++ weights each map by "
                                     "sum_ij alpha_ij * relu(g_ij).")
            no_relu = _cam_pp(A, g, relu_g=False)
            if np.allclose(got_a, no_relu, atol=1e-4, rtol=1e-3):
                return _Result(False, f"{where}: close, but the weights use g where Grad-CAM++ "
                                     "uses relu(g): only positive gradients count.")
            if expected.max() > 0 and got_a.max() > 0 and not np.isclose(got_a.max(), 1.0, atol=1e-4):
                return _Result(False, f"{where}: the maximum of your map is {got_a.max():.4g}, "
                                     "expected 1 (divide by the max).")
            r = _compare_values(f"the Grad-CAM++ map for {where}", got_a, expected,
                               atol=1e-4, rtol=1e-3)
            return _Result(False, r.message + " Check alpha = g² / (2g² + (sum over i, j of A) · g³) "
                                             "per map, with g = d score / dA.")
        return _unless_hooks_left(_hooks_left(model), "hook(s) are",
                                  "remove them in a finally: block",
                                  _Result(True, "the same Grad-CAM++ maps as a computation "
                                                "without hooks, and no hook left."))
    return _run_check("grad_cam_pp", body)
