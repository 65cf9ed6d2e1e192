"""f05: anomaly mode: NaN check, forward tracebacks, the switches and their warnings.

Intent (issue 27 §4): with torch.autograd.detect_anomaly() (or set_detect_anomaly(True))
on during backward, a node returning NaN fails with "Function 'SqrtBackward0' returned
nan values in its 0th output." (inf is not NaN; check_nan=False turns the check off).
Nodes made while the mode is on keep the forward call's stack in
node.metadata["traceback_"], and when a node fails (NaN, its backward raising, a hook
raising) a UserWarning shows that stack; a node made with the mode off says "No
forward pass information available". detect_anomaly warns when made;
set_detect_anomaly does not. The flags: torch.is_anomaly_enabled(),
torch.is_anomaly_check_nan_enabled(). Warnings are recorded and printed here, paths
reduced to this script's frames, without the C++ "(Triggered internally at ...)" suffix.
"""
import warnings

import torch


def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


def show_warnings(caught):
    """The UserWarnings, a traceback reduced to this script's frames (the library's own
    frames differ: PyTorch's Python layer against minigrad's, which it leaves out)."""
    for w in caught:
        if w.category is UserWarning:
            lines = str(w.message).split(" (Triggered internally at")[0].rstrip("\n").split("\n")
            print("  warned:", lines[0])
            frames = ["\n".join(lines[i:i + 2]) for i in range(1, len(lines), 2)]
            for frame in frames:
                if __file__ in frame:
                    print("  |", frame.replace(__file__, "<this script>").replace("\n", "\n  | "))
    caught.clear()


def flags():
    return torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("off:", flags())
    with torch.autograd.detect_anomaly():
        print("detect_anomaly():", flags())
    with torch.autograd.detect_anomaly(check_nan=False):
        print("detect_anomaly(check_nan=False):", flags())
    print("after:", flags())
    show_warnings(caught)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        print("set_detect_anomaly(True, check_nan=False):", flags())
    print("after:", flags())
    torch.autograd.set_detect_anomaly(True)
    print("set_detect_anomaly(True) called:", flags())
    torch.autograd.set_detect_anomaly(False)
    print("set_detect_anomaly(False) called:", flags())
    show_warnings(caught)

    x = torch.tensor([-1., 4.], requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = x.sqrt()
        print("forward NaN is not checked:", y.tolist()[1], "| traceback_ recorded:",
              sorted(y.grad_fn.metadata), y.grad_fn.metadata["traceback_"][-1].strip().splitlines()[-1])
        show_err("backward through sqrt(-1)", lambda: y.sum().backward())
        print("x.grad:", x.grad)
    show_warnings(caught)

    y = (x * 0).sqrt()      # made with the mode off: no forward information
    with torch.autograd.detect_anomaly():
        show_err("inf from sqrt(0), NaN from inf * 0", lambda: y.sum().backward())
    show_warnings(caught)

    y = x.sqrt()
    with torch.autograd.detect_anomaly(check_nan=False):
        y.sum().backward()
        print("check_nan=False: x.grad[1] =", x.grad.tolist()[1])
    show_warnings(caught)

    class Fails(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("backward failed")

    with torch.autograd.detect_anomaly():
        z = Fails.apply(torch.ones(2, requires_grad=True))
        m = torch.ones(2, requires_grad=True) * 3
        m.register_hook(lambda g: 1 / 0)
        show_err("custom backward raises", lambda: z.sum().backward())
        show_warnings(caught)
        show_err("tensor hook raises", lambda: m.sum().backward())
        show_warnings(caught)
        w = torch.ones(2, requires_grad=True)
        show_err("NaN gradient from the caller", lambda: (w * 2).backward(torch.tensor([float("nan"), 1.])))
        show_warnings(caught)
        a = torch.ones(2, requires_grad=True) * 1
        b = a.sin()
        a.add_(1)
        show_err("modified in place", lambda: b.sum().backward())
        show_warnings(caught)
    ok = torch.ones(2, requires_grad=True)
    (ok * 2).sum().backward()
    print("a later backward works:", ok.grad.tolist())
    show_warnings(caught)
