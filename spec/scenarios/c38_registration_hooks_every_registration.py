CLAIM = ("The global parameter registration hook is called every time register_parameter() "
         "is invoked, and the buffer and module hooks likewise.")
VERDICT = "partly true"
SOURCES = (
    ("The documentation of register_module_parameter_registration_hook: the hook is called "
     "every time register_parameter() is invoked.",
     "https://docs.pytorch.org/docs/stable/generated/torch.nn.modules.module.register_module_parameter_registration_hook.html"),
    ("The pull request that added the registration hooks: they run when register_parameter, "
     "register_buffer and register_module are called.",
     "https://github.com/pytorch/pytorch/pull/86148"),
)
WHY = (
    "The hooks sit inside Module.register_parameter, register_buffer and register_module "
    "(add_module), and assigning a Parameter, a Module or a tensor to a buffer's name as "
    "an attribute goes through the same code. So they fire for a layer's own parameters "
    "while it is built, and for every attribute assignment. But register_parameter returns "
    "early for None (a Linear without bias, or 'm.w = None'), before the hooks; "
    "register_buffer and the module paths have no such shortcut, so those hooks are called "
    "with None. Changing a parameter's values (.data, in-place ops) registers nothing."
)


def run(torch):
    out = []
    nn = torch.nn
    api = nn.modules.module

    def shape(value):
        return None if value is None else list(value.shape)

    def hook(kind):
        def record(module, name, value):
            out.append(f"  {kind} hook: {type(module).__name__}.{name} = "
                       f"{type(value).__name__} {shape(value) if kind != 'module' else ''}".rstrip())
        return record

    handles = [api.register_module_parameter_registration_hook(hook("parameter")),
               api.register_module_buffer_registration_hook(hook("buffer")),
               api.register_module_module_registration_hook(hook("module"))]
    try:
        out.append("nn.Linear(2, 1):")
        lin = nn.Linear(2, 1)
        out.append("nn.Linear(2, 1, bias=False):")
        nn.Linear(2, 1, bias=False)
        m = nn.Module()
        out.append("m.w = nn.Parameter(torch.zeros(3)):")
        m.w = nn.Parameter(torch.zeros(3))
        out.append("m.register_parameter('v', None):")
        m.register_parameter("v", None)
        out.append("m.w = None:")
        m.w = None
        out.append("m.register_buffer('b', None):")
        m.register_buffer("b", None)
        out.append("m.b = torch.ones(1):")
        m.b = torch.ones(1)
        out.append("m.sub = None (after m.sub = nn.Identity()):")
        m.sub = nn.Identity()
        m.sub = None
        out.append("lin.weight.data = torch.zeros(1, 2) and lin.bias.add_(1):")
        lin.weight.data = torch.zeros(1, 2)
        with torch.no_grad():
            lin.bias.add_(1)
    finally:
        for h in handles:
            h.remove()
    return out


def check(trace):
    def fired(after):
        start = trace.index(after) + 1
        end = next((i for i in range(start, len(trace)) if not trace[i].startswith("  ")), len(trace))
        return trace[start:end]

    assert fired("nn.Linear(2, 1):") == ["  parameter hook: Linear.weight = Parameter [1, 2]",
                                         "  parameter hook: Linear.bias = Parameter [1]"], \
        "the hooks see a built-in layer's own parameters"
    assert fired("nn.Linear(2, 1, bias=False):") == ["  parameter hook: Linear.weight = Parameter [1, 2]"], \
        "but not its None bias"
    assert fired("m.w = nn.Parameter(torch.zeros(3)):") == ["  parameter hook: Module.w = Parameter [3]"]
    assert fired("m.register_parameter('v', None):") == [], "register_parameter(name, None) skips the hooks"
    assert fired("m.w = None:") == []
    assert fired("m.register_buffer('b', None):") == ["  buffer hook: Module.b = NoneType None"], \
        "register_buffer(name, None) calls them"
    assert fired("m.b = torch.ones(1):") == ["  buffer hook: Module.b = Tensor [1]"]
    assert fired("m.sub = None (after m.sub = nn.Identity()):") == [
        "  module hook: Module.sub = Identity", "  module hook: Module.sub = NoneType"]
    assert fired("lin.weight.data = torch.zeros(1, 2) and lin.bias.add_(1):") == [], \
        "changing values registers nothing"
