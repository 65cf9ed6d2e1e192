CLAIM = ("A TorchDispatchMode entered only around backward() sees nothing: the ops ran in "
         "the forward pass.")
VERDICT = "false"
SOURCES = (
    ("A review discussion in torchao: an engineer understood that autograd is not captured "
     "at the __torch_dispatch__ level, having seen only the forward pass run there.",
     "https://github.com/pytorch/ao/pull/3985"),
    ("The pull request that documents __torch_dispatch__ and modes in the extending notes: "
     "that code runs below every feature, autograd included, like a backend.",
     "https://github.com/pytorch/pytorch/pull/102087"),
    ("A PyTorch dev log on how the dispatcher works: every operator call goes through it, "
     "whoever makes it.",
     "https://docs.pytorch.org/devlogs/dispatcher/2026-04-16-how-does-the-dispatcher-work/"),
)
WHY = (
    "A backward node's formula is made of ordinary ops (SinBackward0 computes grad * "
    "x.cos(), MulBackward0 grad * other and grad * self), and each goes through the "
    "dispatcher when the engine runs the node, so a mode active during backward() sees "
    "them, and sees the ops of a custom Function's backward the same way. With two modes, "
    "the innermost gets each op first; calling func(*args) inside it hands the op to the "
    "next mode out, then to the kernel."
)

SHOWN = ("cos", "mul", "neg", "sin")       # ops worth naming (the engine's own differ)


def run(torch):
    import importlib
    dispatch = importlib.import_module(torch.__name__ + ".utils._python_dispatch")
    out = []

    class Log(dispatch.TorchDispatchMode):
        def __init__(self, tag, seen):
            super().__init__()
            self.tag, self.seen = tag, seen

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.seen.append((self.tag, func.overloadpacket.__name__))
            return func(*args, **(kwargs or {}))

    def shown(seen):
        return sorted({name for _, name in seen if name in SHOWN})

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.sin() * x).sum()                         # the forward pass, outside any mode
    seen = []
    with Log("mode", seen):
        y.backward()
    out.append(f"ops seen during backward() of (x.sin() * x).sum(): {shown(seen)}")

    class Flip(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0

        @staticmethod
        def backward(ctx, grad):
            return grad.neg()

    z = Flip.apply(x).sum()
    seen = []
    with Log("mode", seen):
        z.backward()
    out.append(f"ops seen during a custom Function's backward: {shown(seen)}")

    a = x.detach()
    seen = []
    with Log("outer", seen), Log("inner", seen):
        a * 2.0
    out.append(f"two nested modes, one mul: {[tag for tag, name in seen if name == 'mul']}")
    return out


def check(trace):
    assert trace[0].endswith("['cos', 'mul']"), "the backward formulas' ops are dispatched"
    assert trace[1].endswith("['neg']"), "a custom Function's backward ops too"
    assert trace[2].endswith("['inner', 'outer']"), "the innermost mode sees each op first"
