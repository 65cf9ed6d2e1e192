CLAIM = ("With strict=True, a key mismatch makes load_state_dict raise before anything is "
         "loaded, so a load_state_dict post-hook never sees it.")
VERDICT = "false"
SOURCES = (
    ("A forum answer: with strict=True a model with extra or missing layers throws, and it is "
     "strict=False that loads the layers both models have.",
     "https://discuss.pytorch.org/t/does-model-load-state-dict-strict-false-ignore-new-parameters-introduced-in-my-models-constructor/84539"),
    ("The pull request that added load_state_dict post-hooks: the hook gets the missing and "
     "unexpected keys, may change them in place, and what it leaves decides the strict error.",
     "https://github.com/pytorch/pytorch/pull/76823"),
    ("An issue: _load_from_state_dict is always called with strict=True, so a module's load "
     "pre-hooks cannot tell a strict load from a lenient one.",
     "https://github.com/pytorch/pytorch/issues/156177"),
)
WHY = (
    "load_state_dict first walks the whole tree: each module copies the tensors it finds "
    "and appends the keys it misses (or does not know) to two shared lists, then its "
    "post-hooks run with those lists as incompatible_keys. Only after the walk does strict "
    "turn what is left in the lists into the RuntimeError. So the tensors that matched are "
    "already loaded when it raises, every post-hook has run and seen the mismatch, and a "
    "post-hook that empties the lists in place makes the strict load succeed. Returning "
    "a value instead is refused with an AssertionError."
)


def run(torch):
    from ._util import L, try_call
    out = []
    lin = torch.nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.zero_()
        lin.bias.zero_()
    checkpoint = {"weight": torch.tensor([[1.0, 2.0]])}         # no "bias"

    def report(module, incompatible_keys):
        out.append(f"  post-hook sees missing={incompatible_keys.missing_keys} "
                   f"unexpected={incompatible_keys.unexpected_keys}")

    def forgive(module, incompatible_keys):
        incompatible_keys.missing_keys.clear()

    def return_cleaned(module, incompatible_keys):
        return type(incompatible_keys)([], [])

    for label, hook in (("a hook that only looks", report), ("a hook clearing the list in place", forgive),
                        ("a hook returning cleaned keys", return_cleaned)):
        out.append(f"{label}:")
        handle = lin.register_load_state_dict_post_hook(hook)
        out.append("  " + try_call("load_state_dict(strict=True)",
                                   lambda: lin.load_state_dict(checkpoint)).replace("\n\t", " ").rstrip())
        handle.remove()
        out.append(f"  weight = {L(lin.weight)}")
        with torch.no_grad():
            lin.weight.zero_()
    return out


def check(trace):
    assert trace[1] == "  post-hook sees missing=['bias'] unexpected=[]", \
        "the post-hook runs, and sees the mismatch, before strict raises"
    assert trace[2].startswith("  load_state_dict(strict=True) -> RuntimeError: Error(s) in loading")
    assert trace[3] == "  weight = [[1.0, 2.0]]", "the matching tensors were loaded before the error"
    assert trace[5] == "  load_state_dict(strict=True) -> no error", \
        "emptying the list in place makes the strict load succeed"
    assert trace[8].startswith("  load_state_dict(strict=True) -> AssertionError: Hooks registered "
                               "with ``register_load_state_dict_post_hook`` are not expected to "
                               "return new values"), "returning keys is refused"
