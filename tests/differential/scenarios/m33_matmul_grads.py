"""m33: matmul gradients for every shape pairing, with node post-hooks.

Intent: grad_A = G @ B^T and grad_B = A^T @ G for 2-D; matrix-vector and
vector-vector products; a batched 3-D @ 2-D (the weight gradient is summed
over the batch). Post-hook shapes show what the node returns.
"""
import torch

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

def shapes(ts):
    return [None if t is None else tuple(t.shape) for t in ts]

def run(label, sa, sb):
    na = 1
    for s in sa:
        na *= s
    nb = 1
    for s in sb:
        nb *= s
    A = (torch.arange(float(na)) - 2).reshape(sa).requires_grad_()
    B = (torch.arange(float(nb)) * 0.5).reshape(sb).requires_grad_()
    C = A @ B
    C.grad_fn.register_hook(lambda gi, go: print("   post", C.grad_fn.name(), "grad_inputs", shapes(gi)))
    G = torch.arange(float(C.numel())).reshape(C.shape) + 1
    C.backward(G)
    print(label, "C", r(C))
    print("   A.grad", r(A.grad))
    print("   B.grad", r(B.grad))

run("[2,3] @ [3,2]", (2, 3), (3, 2))
run("[2,3] @ [3]", (2, 3), (3,))
run("[3] @ [3]", (3,), (3,))
run("[3] @ [3,2]", (3,), (3, 2))
run("[2,2,3] @ [3,2]", (2, 2, 3), (3, 2))
x = torch.ones(2, 3)
show_err("shape mismatch", lambda: x @ torch.ones(2, 3))
print("torch.matmul == @:", torch.allclose(torch.matmul(x, x.T), x @ x.T))
