"""e03: every bad call of autograd.grad / backward, with PyTorch's error.

Intent: a learner's first contact with autograd is often an exception; its
type and text must be PyTorch's. Covers empty inputs, non-scalar outputs
without grad_outputs, wrong shapes and counts of grad_outputs, inputs or
outputs that do not require grad, non-tensor inputs, allow_unused, a second
backward through a freed graph, integer outputs.
"""
import torch

def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)

x = torch.tensor([1., 2.], requires_grad=True)
w = torch.tensor([3., 4.], requires_grad=True)
n = torch.tensor([1., 2.])
def make():
    return (x * w).sum()
y = x * w

show_err("grad(out, [])", lambda: torch.autograd.grad(make(), []))
show_err("grad(out, ())", lambda: torch.autograd.grad(make(), ()))
show_err("backward(inputs=[])", lambda: make().backward(inputs=[]))
show_err("backward(inputs=())", lambda: make().backward(inputs=()))
show_err("grad non-scalar, no grad_outputs", lambda: torch.autograd.grad(x * w, x))
show_err("backward non-scalar", lambda: (x * w).backward())
show_err("grad wrong-shaped grad_outputs", lambda: torch.autograd.grad(x * w, x, grad_outputs=torch.ones(3)))
show_err("backward wrong-shaped gradient", lambda: (x * w).backward(torch.ones(3)))
show_err("grad_outputs count (2 for 1)",
         lambda: torch.autograd.grad(x * w, x, grad_outputs=[torch.ones(2), torch.ones(2)]))
show_err("grad_tensors count (2 for 1)",
         lambda: torch.autograd.backward([x * w], [torch.ones(2), torch.ones(2)]))
show_err("grad_outputs count (1 for 2)", lambda: torch.autograd.grad([x * w, x * 2], x,
                                                                     grad_outputs=[torch.ones(2)]))
show_err("grad_outputs not a tensor", lambda: torch.autograd.grad(x * w, x, grad_outputs=[3]))
show_err("grad_outputs of another dtype",
         lambda: torch.autograd.grad(x * w, x, grad_outputs=torch.ones(2, dtype=torch.float64)))
show_err("grad input does not require grad", lambda: torch.autograd.grad(make(), n))
show_err("backward input does not require grad", lambda: make().backward(inputs=[n]))
show_err("grad input not a tensor", lambda: torch.autograd.grad(make(), [x, 3]))
show_err("backward input not a tensor", lambda: make().backward(inputs=[x, 3]))
show_err("grad output does not require grad", lambda: torch.autograd.grad(n.sum(), x))
show_err("backward output does not require grad", lambda: n.sum().backward())
show_err("grad output not a tensor", lambda: torch.autograd.grad(3.0, x))
show_err("grad unused input", lambda: torch.autograd.grad((x * 2).sum(), [x, w]))
show_err("grad unused input, allow_unused=False", lambda: torch.autograd.grad((x * 2).sum(), [x, w],
                                                                              allow_unused=False))
print("allow_unused=True", torch.autograd.grad((x * 2).sum(), [x, w], allow_unused=True))
print("materialize_grads", torch.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True))
show_err("materialize_grads with allow_unused=False",
         lambda: torch.autograd.grad((x * 2).sum(), [x, w], allow_unused=False, materialize_grads=True))
out = make()
out.backward()
show_err("second backward", lambda: out.backward())
out = make()
torch.autograd.grad(out, x)
show_err("second grad", lambda: torch.autograd.grad(out, x))
i = torch.tensor([1, 2])
show_err("integer output", lambda: i.sum().backward())
show_err("backward on a leaf that requires no grad", lambda: n.backward(torch.ones(2)))
show_err("grad of a leaf wrt itself", lambda: print("  ", torch.autograd.grad(x, x,
                                                                              grad_outputs=torch.ones(2))))
show_err("retain_graph then freed", lambda: (lambda o: (o.backward(retain_graph=True), o.backward(),
                                                        o.backward()))(make()))
print("inputs as a dict", torch.autograd.grad(make(), {"x": x, "w": w}))
show_err("inputs as another Mapping", lambda: torch.autograd.grad(make(),
                                                                  __import__("collections").OrderedDict(x=x)))
show_err("order: empty inputs before a non-scalar output", lambda: torch.autograd.grad(x * w, []))
show_err("order: count before requires_grad", lambda: torch.autograd.grad([n * 2, x * 2], x,
                                                                          grad_outputs=[torch.ones(2)]))
show_err("order: outputs before inputs", lambda: torch.autograd.grad(n.sum(), [3]))
show_err("is_grads_batched, wrong batch shape",
         lambda: torch.autograd.grad(x * w, x, grad_outputs=torch.ones(2, 3), is_grads_batched=True))
m, = torch.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True, create_graph=True)[1:]
print("materialized zeros with create_graph require grad:", m.requires_grad, m.grad_fn)
