"""The spec catches rule changes: every hook rule it documents, once broken, fails it.

Each mutation below breaks one hook rule of minigrad: it copies the ``minigrad`` package
to a temporary folder and changes the copy's source by a small textual patch, located by
a distinctive code snippet. The spec scenarios (``spec/scenarios/``) then run on the copy,
in one subprocess per mutation (the cross-check's runner, ``tests/test_spec_crosscheck.py``,
with the copy first on ``PYTHONPATH``), and the spec must fail: a scenario that raises,
whose ``check()`` fails, or whose trace differs from PyTorch's recording (which the
notebooks print, so strict nbval would fail too). Each mutation names the claim written
for its rule, and that claim must be among the failures.

When the source moves (a refactor renames or rewrites the patched lines) the test fails
with "mutation X no longer applies": update that mutation's snippet to the new code,
keeping the rule it breaks.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "test_spec_crosscheck.py"
TRACES = ROOT / "spec" / "torch_traces"


@dataclass(frozen=True)
class Mutation:
    name: str            # the rule it breaks, as a test id
    path: str            # the file patched, relative to the repository root
    patches: tuple       # (snippet, replacement) pairs; each snippet occurs exactly once
    caught_by: str       # the spec scenario written for this rule


MUTATIONS = [
    Mutation("tensor hooks run last-registered-first", "minigrad/autograd/engine.py",
             (("for hook in list(hooks.values()):", "for hook in reversed(list(hooks.values())):"),),
             "c01_hooks_lifo"),
    Mutation("node pre-hooks run last-registered-first", "minigrad/autograd/engine.py",
             (("return list(node._pre_hooks.values()) if node._pre_hooks else []",
               "return list(node._pre_hooks.values())[::-1] if node._pre_hooks else []"),),
             "c01_hooks_lifo"),
    Mutation("node post-hooks run last-registered-first", "minigrad/autograd/engine.py",
             (("return list(node._post_hooks.values()) if node._post_hooks else []",
               "return list(node._post_hooks.values())[::-1] if node._post_hooks else []"),),
             "c21_grad_fn_post_hooks_order"),
    Mutation("a module's own hooks run before the global ones", "minigrad/nn/modules/module.py",
             (("return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]",
               "return [*self._backward_pre_hooks.values(), *_global_backward_pre_hooks.values()]"),),
             "c23_global_module_hooks_first"),
    Mutation("the outermost saved-tensor hooks apply", "minigrad/autograd/saved_variable.py",
             (("return stack[-1] if stack else None", "return stack[0] if stack else None"),),
             "c02_saved_hooks_innermost"),
    Mutation("mode 'all' behaves as 'any'", "minigrad/autograd/graph.py",
             (('    if mode == "any":\n        ran = {}',
               '    if mode in ("any", "all"):\n        ran = {}'),),
             "c07_multi_grad_hook"),
    Mutation("mode 'all' counts per pass (no call lost to a nested pass)", "minigrad/autograd/graph.py",
             (("nb_calls = [None]", "nb_calls = {}"),
              ("nb_calls[0] = sum(", "nb_calls[task_id] = sum("),
              ("done = count[task_id] == nb_calls[0]", "done = count[task_id] == nb_calls[task_id]")),
             "c27_multi_grad_all_once_per_pass"),
    Mutation("leaves wait like other nodes (lowest priority)", "minigrad/autograd/graph.py",
             (("ACCUMULATE_GRAD_SEQUENCE_NR = 2 ** 64 - 1", "ACCUMULATE_GRAD_SEQUENCE_NR = -1"),),
             "c12_ready_queue_order"),
    Mutation("tied nodes pop in another heap order", "minigrad/autograd/engine.py",
             (("if h[parent][0] < key:", "if h[parent][0] <= key:"),),
             "c25_leaves_ready_together_fifo"),
    Mutation("retain_grad stores the gradient before the tensor hooks", "minigrad/autograd/engine.py",
             (("    for nr, hook in tensor_hooks(fn):\n",
               "    unhooked = list(inputs)\n    for nr, hook in tensor_hooks(fn):\n"),
              ("for nr in store_retained_grads(fn, inputs):",
               "for nr in store_retained_grads(fn, unhooked):")),
             "c05_retain_grad_after_hooks"),
    Mutation("a hook removed during the pass is skipped at once", "minigrad/autograd/engine.py",
             (("            yield nr, hook\n",
               "            if hook in hooks.values():\n                yield nr, hook\n"),),
             "c32_handle_remove_same_pass"),
    Mutation("post-accumulate hooks skip a None gradient", "minigrad/autograd/graph.py",
             (("hooks = variable._post_accumulate_grad_hooks if run_hooks else None",
               "hooks = (variable._post_accumulate_grad_hooks\n"
               "             if run_hooks and grad_outputs[0] is not None else None)"),),
             "c29_post_accumulate_only_when_accumulated"),
    # the module and optimizer hook levels
    Mutation("state_dict pre-hooks run after the children", "minigrad/nn/modules/module.py",
             (("        for hook in self._state_dict_pre_hooks.values():\n"
               "            hook(self, prefix, keep_vars)\n", ""),
              ("        for hook in self._state_dict_hooks.values():\n",
               "        for hook in self._state_dict_pre_hooks.values():\n"
               "            hook(self, prefix, keep_vars)\n"
               "        for hook in self._state_dict_hooks.values():\n")),
             "c35_state_dict_hooks_parent_first"),
    Mutation("a public state_dict post-hook's return value replaces the dict",
             "minigrad/nn/modules/module.py",
             (('if getattr(hook, "_from_public_api", False):\n                if hook_result is not None:',
               "if False:\n                if hook_result is not None:"),),
             "c36_state_dict_post_hook_returns_dict"),
    Mutation("load post-hooks get a copy of the incompatible keys", "minigrad/nn/modules/module.py",
             (("incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)",
               "incompatible_keys = _IncompatibleKeys(list(missing_keys), list(unexpected_keys))"),),
             "c37_strict_load_fails_before_post_hooks"),
    Mutation("buffer registration hooks skip None", "minigrad/nn/modules/module.py",
             (("self._buffers[name] = _registered_value(_global_buffer_registration_hooks, self, name, "
               "tensor)",
               "self._buffers[name] = tensor if tensor is None else "
               "_registered_value(_global_buffer_registration_hooks, self, name, tensor)"),),
             "c38_registration_hooks_every_registration"),
    Mutation("a registration hook's return value is ignored", "minigrad/nn/modules/module.py",
             (("        if output is not None:\n            value = output\n",
               "        if output is not None:\n            output = value\n"),),
             "c39_registration_hook_return_replaces"),
    Mutation("global optimizer post-hooks run before the optimizer's own", "minigrad/optim/optimizer.py",
             (("for post_hook in (*self._optimizer_step_post_hooks.values(),\n"
               "                              *_global_optimizer_post_hooks.values()):",
               "for post_hook in (*_global_optimizer_post_hooks.values(),\n"
               "                              *self._optimizer_step_post_hooks.values()):"),),
             "c40_optimizer_global_step_hooks_first"),
    Mutation("a step pre-hook's returned arguments are ignored", "minigrad/optim/optimizer.py",
             (("                        args, kwargs = result\n", "                        pass\n"),),
             "c41_step_pre_hook_args"),
    Mutation("the outermost dispatch mode sees each op first", "minigrad/utils/_python_dispatch.py",
             (("    mode = _mode_stack.pop()\n", "    mode = _mode_stack.pop(0)\n"),
              ("        _mode_stack.append(mode)\n", "        _mode_stack.insert(0, mode)\n")),
             "c42_dispatch_mode_around_backward"),
]


def mutated_copy(mutation: Mutation | None, dest: Path) -> Path:
    """A copy of the package under ``dest`` with ``mutation`` applied (None: unchanged).
    Fails loudly if a snippet is not found exactly once."""
    shutil.copytree(ROOT / "minigrad", dest / "minigrad",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if mutation is not None:
        target = dest / mutation.path
        source = target.read_text(encoding="utf-8")
        for snippet, replacement in mutation.patches:
            found = source.count(snippet)
            if found != 1:
                pytest.fail(f"mutation {mutation.name!r} no longer applies: {mutation.path} holds "
                            f"{found} copies of the snippet {snippet!r} (expected 1). The source "
                            f"moved: update this mutation in tests/test_spec_mutations.py.",
                            pytrace=False)
            source = source.replace(snippet, replacement)
        target.write_text(source, encoding="utf-8")
    return dest


def spec_failures(package_parent: Path) -> dict[str, str]:
    """{scenario: why it fails} when the spec runs on the package in ``package_parent``."""
    out = package_parent / "results.json"
    env = dict(os.environ, PYTHONHASHSEED="0",
               PYTHONPATH=os.pathsep.join([str(package_parent), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(RUNNER), "minigrad", str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 or not out.exists():
        return {"(runner)": f"exited {proc.returncode}: {proc.stderr[-2000:]}"}
    data = json.loads(out.read_text(encoding="utf-8"))
    assert Path(data["framework_file"]).is_relative_to(package_parent), \
        f"the spec ran on {data['framework_file']}, not on the mutated copy"
    failures = {}
    for name, entry in data["results"].items():
        recorded = json.loads((TRACES / f"{name}.json").read_text(encoding="utf-8"))["trace"]
        if entry["error"] is not None:
            failures[name] = "run() raised: " + entry["error"].strip().splitlines()[-1]
        elif entry["check_error"] is not None:
            failures[name] = "check() failed: " + entry["check_error"].strip().splitlines()[-1]
        elif entry["traces"][0] != recorded:
            failures[name] = "trace differs from PyTorch's recording"
    return failures


pytestmark = pytest.mark.slow


def test_unmutated_copy_passes(tmp_path):
    """The control: the copy itself passes, so a failure below is the mutation's doing."""
    assert spec_failures(mutated_copy(None, tmp_path)) == {}


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.name for m in MUTATIONS])
def test_spec_catches_mutation(mutation, tmp_path):
    failures = spec_failures(mutated_copy(mutation, tmp_path))
    assert failures, f"no spec scenario fails when {mutation.name!r}: the spec misses this rule"
    assert mutation.caught_by in failures, (
        f"{mutation.caught_by} (the claim about this rule) does not fail when {mutation.name!r}; "
        f"failing: {json.dumps(failures, indent=1)}")


def test_mutations_cover_distinct_rules():
    assert len(MUTATIONS) >= 10
    assert len({m.name for m in MUTATIONS}) == len(MUTATIONS)
    assert len({m.patches for m in MUTATIONS}) == len(MUTATIONS), "two mutations make the same change"
