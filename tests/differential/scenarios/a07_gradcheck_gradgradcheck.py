"""a07: torch.autograd.gradcheck and gradgradcheck: what they answer.

Intent: both compare analytical gradients (backward passes) with finite differences in
float64: True for a correct function, and for a wrong custom backward gradcheck raises
GradcheckError (a RuntimeError) naming the mismatch, or returns False with
raise_exception=False. Only the answers are compared: the passes each library makes to
build the Jacobians are its own business (tests/test_trace.py lists this script in KNOWN).
"""
import torch


class WrongBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t ** 2

    @staticmethod
    def backward(ctx, g):
        t, = ctx.saved_tensors
        return 3 * t * g        # should be 2 * t * g


d = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
print("gradcheck", torch.autograd.gradcheck(lambda t: (t ** 3).sin(), (d,)))
print("gradgradcheck", torch.autograd.gradgradcheck(lambda t: (t ** 3).sin(), (d,)))
print("wrong backward, no raise:", torch.autograd.gradcheck(WrongBackward.apply, (d,), raise_exception=False))
try:
    torch.autograd.gradcheck(WrongBackward.apply, (d,))
except RuntimeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
