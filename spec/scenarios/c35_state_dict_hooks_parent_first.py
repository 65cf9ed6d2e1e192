CLAIM = ("In a nested model, a parent module's state_dict and load_state_dict hooks run before "
         "its children's.")
VERDICT = "partly true"
SOURCES = (
    ("The pull request that added load_state_dict post-hooks: like the state_dict post-hook, it "
     "runs after the module and all its children were loaded.",
     "https://github.com/pytorch/pytorch/pull/75422"),
    ("A project's pull request changing its own loading to visit a parent before its children, "
     "so that the root's load pre-hook can drop keys before the children see them.",
     "https://github.com/HorizonRobotics/alf/pull/1513"),
    ("The issue that gathered these hooks: a maintainer suggests a with_prefix option for the "
     "load_state_dict post-hook, which gets no prefix.",
     "https://github.com/pytorch/pytorch/issues/75287"),
    ("A tutorial on register_state_dict_post_hook: a hook on a submodule fires level by level "
     "when the parent's state_dict is called, and key names can clash.",
     "https://runebook.dev/zh/docs/pytorch/generated/torch.nn.module/torch.nn.Module.register_state_dict_post_hook"),
)
WHY = (
    "state_dict() and load_state_dict() walk the module tree depth first, each module in one "
    "recursive call: its pre-hooks, its own tensors, its children (each a full call), then its "
    "post-hooks. So pre-hooks run parent first (pre-order) and post-hooks children first "
    "(post-order), a whole subtree closing before the next sibling opens. The state_dict hooks "
    "and the load pre-hook get the module's prefix ('0.lin.'); a state_dict post-hook gets the one "
    "dictionary being filled, with the keys of every module saved before it (its earlier "
    "siblings' included), while a load pre-hook gets only the keys under its prefix. A load "
    "post-hook gets no prefix, only the module and the keys that did not match."
)


def run(torch):
    out = []
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(1, 1)

    net = nn.Sequential(Block(), nn.Linear(1, 1))
    for name, module in net.named_modules():
        label = name or "root"

        def sd_pre(mod, prefix, keep_vars, label=label):
            out.append(f"  state_dict pre  {label:5} prefix={prefix!r}")

        def sd_post(mod, state_dict, prefix, local_metadata, label=label):
            out.append(f"  state_dict post {label:5} prefix={prefix!r} keys={list(state_dict)}")

        def load_pre(mod, state_dict, prefix, *rest, label=label):
            out.append(f"  load pre  {label:5} prefix={prefix!r} keys={list(state_dict)}")

        def load_post(mod, incompatible_keys, label=label):
            out.append(f"  load post {label}")

        module.register_state_dict_pre_hook(sd_pre)
        module.register_state_dict_post_hook(sd_post)
        module.register_load_state_dict_pre_hook(load_pre)
        module.register_load_state_dict_post_hook(load_post)
    out.append("state_dict():")
    state = net.state_dict()
    out.append("load_state_dict():")
    net.load_state_dict(state)
    return out


def check(trace):
    from ._util import index_of

    def order(kind):
        return [line.split()[2] for line in trace if line.startswith(f"  {kind} ")]

    assert order("state_dict pre") == ["root", "0", "0.lin", "1"], "pre-hooks run parent first"
    assert order("state_dict post") == ["0.lin", "0", "1", "root"], "post-hooks run children first"
    assert order("load pre") == ["root", "0", "0.lin", "1"]
    assert order("load post") == ["0.lin", "0", "1", "root"]
    assert trace.index("  state_dict pre  1     prefix='1.'") > \
        index_of(trace, "  state_dict post 0     "), "a subtree closes before the next sibling opens"
    assert "  state_dict pre  0.lin prefix='0.lin.'" in trace, "hooks get the full prefix"
    assert any(line.startswith("  state_dict post 1     prefix='1.' keys=['0.lin.weight', ")
               for line in trace), "a post-hook sees the keys of the modules saved before it"
    assert "  load pre  1     prefix='1.' keys=['1.weight', '1.bias']" in trace, \
        "a load pre-hook sees only the keys under its prefix"
