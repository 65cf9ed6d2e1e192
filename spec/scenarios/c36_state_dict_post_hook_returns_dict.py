CLAIM = ("A state_dict post-hook must return the state dict: what it returns is what "
         "state_dict() gives.")
VERDICT = "false"
SOURCES = (
    ("A tutorial on register_state_dict_post_hook: the hook must return the processed "
     "state_dict, or state_dict() returns None.",
     "https://runebook.dev/zh/docs/pytorch/generated/torch.nn.module/torch.nn.Module.register_state_dict_post_hook"),
    ("An issue: the private _register_state_dict_hook's docstring says a hook may return a new "
     "dict, but a dict returned by a child module's hook is lost.",
     "https://github.com/pytorch/pytorch/issues/117437"),
    ("The pull request that made the hook public as register_state_dict_post_hook: the public "
     "form must return None, the private one keeps its old behaviour.",
     "https://github.com/pytorch/pytorch/pull/131690"),
)
WHY = (
    "state_dict() fills one dictionary down the whole module tree and each post-hook gets it "
    "to change in place. A hook registered with the public register_state_dict_post_hook must "
    "return None: any other value raises RuntimeError. Only the older private "
    "_register_state_dict_hook lets a returned dict replace the result, and only on the "
    "module state_dict() was called on: a child's state_dict() result is dropped by its "
    "parent, which goes on filling its own dictionary, so a child hook's new dict is lost."
)


def run(torch):
    from ._util import try_call
    out = []
    nn = torch.nn
    lin = nn.Linear(1, 1)
    net = nn.Sequential(lin)

    def in_place(module, state_dict, prefix, local_metadata):
        state_dict[prefix + "note"] = torch.tensor([1.0])

    def returns_new(module, state_dict, prefix, local_metadata):
        return {prefix + "only": torch.tensor([1.0])}

    handle = lin.register_state_dict_post_hook(in_place)
    out.append(f"public hook changing the dict in place: {list(net.state_dict())}")
    handle.remove()
    handle = lin.register_state_dict_post_hook(returns_new)
    out.append(try_call("public hook returning a dict: net.state_dict()", net.state_dict))
    handle.remove()
    # a new function: one registered through the public method cannot be registered privately
    handle = lin._register_state_dict_hook(lambda *args: returns_new(*args))
    out.append(f"private hook returning a dict, lin.state_dict(): {list(lin.state_dict())}")
    out.append(f"private hook returning a dict, net.state_dict(): {list(net.state_dict())}")
    handle.remove()
    return out


def check(trace):
    assert trace[0].endswith("['0.weight', '0.bias', '0.note']"), "changing the dict in place works"
    assert trace[1].endswith("-> RuntimeError: state_dict post-hook must return None"), \
        "a public post-hook may not return a value"
    assert trace[2].endswith("['only']"), "the private hook's dict replaces the module's own result"
    assert trace[3].endswith("['0.weight', '0.bias']"), "but not when the module is a child"
