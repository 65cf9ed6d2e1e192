CLAIM = ("A registration hook can only watch: to replace a parameter, set it again after the "
         "module is built.")
VERDICT = "false"
SOURCES = (
    ("The documentation of register_module_parameter_registration_hook: the hook may return "
     "a new parameter, or None.",
     "https://docs.pytorch.org/docs/stable/generated/torch.nn.modules.module.register_module_parameter_registration_hook.html"),
    ("The documentation of register_module_module_registration_hook: the same for submodules.",
     "https://docs.pytorch.org/docs/stable/generated/torch.nn.modules.module.register_module_module_registration_hook.html"),
)
WHY = (
    "register_parameter (and register_buffer, register_module) passes the value through "
    "each global registration hook in turn: a hook that returns something replaces the "
    "value for the next hook and for the module, which stores the replacement instead of "
    "what was passed. It works inside a built-in layer's __init__ too: Linear registers its "
    "weight and bias first and initialises them in place afterwards (reset_parameters), so "
    "the hook's parameter is the one that gets initialised and trained."
)


def run(torch):
    out = []
    nn = torch.nn
    api = nn.modules.module
    made = {}

    def replace_with_zeros(module, name, param):
        out.append(f"  first hook gets {name} {list(param.shape)}")
        made[name] = nn.Parameter(torch.zeros(param.shape))
        return made[name]

    def look(module, name, param):
        out.append(f"  second hook gets the first one's parameter: {param is made[name]}")

    handles = [api.register_module_parameter_registration_hook(replace_with_zeros),
               api.register_module_parameter_registration_hook(look),
               api.register_module_module_registration_hook(
                   lambda module, name, sub: nn.Identity() if isinstance(sub, nn.ReLU) else None)]
    try:
        out.append("nn.Linear(2, 1):")
        lin = nn.Linear(2, 1)
        out.append("m.p = p:")
        m = nn.Module()
        p = nn.Parameter(torch.ones(2))
        m.p = p
        seq = nn.Sequential(nn.ReLU())
    finally:
        for h in handles:
            h.remove()
    out.append(f"lin.weight is the hook's parameter: {lin.weight is made['weight']}")
    out.append(f"and was initialised in place: {lin.weight.abs().sum().item() > 0}")
    out.append(f"m.p is p: {m.p is p}; m.p = {m.p.tolist()}")
    out.append(f"nn.Sequential(nn.ReLU()) holds: {type(seq[0]).__name__}")
    return out


def check(trace):
    assert trace.count("  second hook gets the first one's parameter: True") == 3, \
        "a returned value is what the next hook gets"
    assert "lin.weight is the hook's parameter: True" in trace, "and what the module keeps"
    assert "and was initialised in place: True" in trace
    assert "m.p is p: False; m.p = [0.0, 0.0]" in trace, "an attribute assignment is replaced too"
    assert trace[-1] == "nn.Sequential(nn.ReLU()) holds: Identity", "module hooks replace submodules"
