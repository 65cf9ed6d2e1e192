"""m38: Replacing gradients at each hook level inside a diamond graph.

Intent: a tensor hook's replacement only changes the branch it sits on; a
node pre-hook's replacement is what the node computes with; a node
post-hook's replacement is what flows to the next nodes; the leaf's .grad is
the sum of the modified branches. Each stage is checked in its own run.
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

def build():
    x = torch.tensor([1., 2.], requires_grad=True)
    left = x * 2
    right = x * 3
    out = (left + right).sum()
    return x, left, right, out

x, left, right, out = build()
out.backward()
print("no hooks: x.grad", r(x.grad))

x, left, right, out = build()
left.register_hook(lambda g: g * 100)
out.backward()
print("tensor hook on left *100: x.grad", r(x.grad))

x, left, right, out = build()
right.grad_fn.register_prehook(lambda go: (go[0] * 0,))
out.backward()
print("pre-hook zeroes right's grad_output: x.grad", r(x.grad))

x, left, right, out = build()
def post(gi, go):
    print("  post-hook on AddBackward0 sees", [r(g) for g in gi])
    return (gi[0] * -1, gi[1])
add_node = out.grad_fn.next_functions[0][0]
print("add node", add_node.name())
add_node.register_hook(post)
out.backward()
print("post-hook negates left input: x.grad", r(x.grad))

x, left, right, out = build()
x.register_hook(lambda g: print("  leaf hook sees the sum", r(g)) or g + 1000)
out.backward()
print("leaf hook +1000: x.grad", r(x.grad))

x, left, right, out = build()
add_node = out.grad_fn.next_functions[0][0]
add_node.register_hook(lambda gi, go: (None, gi[1]))
out.backward()
print("post-hook sets the left slot to None: x.grad", r(x.grad))
