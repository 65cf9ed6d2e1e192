"""m13: softmax and log_softmax: values, gradients with non-uniform upstream, node names.

Intent: the softmax Jacobian-vector product s * (g - sum(g * s)) and log_softmax's
g - softmax * sum(g), along dim=-1 and dim=0, through Tensor methods and the
torch.* / nn.functional spellings. Rounded to 4 places.
"""
import torch
import torch.nn.functional as F

def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)

def r(t, n=4):
    """t.tolist() rounded to n places (float32 noise differs between numpy and torch); -0.0 -> 0.0."""
    v = t.tolist() if hasattr(t, "tolist") else t
    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)


logits = [[1., 2., 3.], [1., 1., 1.], [-2., 0., 5.]]
up = torch.tensor([[1., 0., 0.], [0., 2., -1.], [0.5, 0.5, 3.]])

def run(label, fn):
    x = torch.tensor(logits, requires_grad=True)
    y = fn(x)
    y.backward(up)
    print(label, y.grad_fn.name())
    print("   value", r(y))
    print("   grad ", r(x.grad))

run("x.softmax(-1)", lambda x: x.softmax(-1))
run("x.softmax(dim=0)", lambda x: x.softmax(dim=0))
run("torch.softmax(x, 1)", lambda x: torch.softmax(x, 1))
run("F.softmax(x, dim=1)", lambda x: F.softmax(x, dim=1))
run("x.log_softmax(-1)", lambda x: x.log_softmax(-1))
run("F.log_softmax(x, dim=0)", lambda x: F.log_softmax(x, dim=0))

x = torch.tensor(logits, requires_grad=True)
s = x.softmax(-1)
print("rows sum to 1:", r(s.sum(-1)))
s.sum().backward()
print("grad of sum(softmax) is ~0:", r(x.grad))
