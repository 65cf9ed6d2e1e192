"""Claims about PyTorch hooks, each as a runnable scenario with a verdict.

Every module ``cNN_<name>`` exposes:

* ``CLAIM``   -- the claim as it is commonly stated (blog posts, Q&A answers);
* ``VERDICT`` -- "true", "false" or "partly true", as PyTorch 2.13 decides;
* ``SOURCES`` -- where the claim is made or the topic is documented: ``(what the page
  says, in our words, its public https address)`` pairs;
* ``WHY``     -- one paragraph: which engine rule causes the behaviour;
* ``run(torch) -> list[str]`` -- the scenario, using only the module it is given
  (real ``torch`` or ``minigrad``), returning deterministic trace lines;
* ``check(trace) -> None`` -- the verdict as assertions on the trace.

``NAMES`` is the registry, in notebook order. PyTorch 2.13's trace of each scenario is
committed as data in ``spec/torch_traces/<name>.json`` (written by
``tools/record_torch_traces.py``), so a notebook can show it without torch installed.
"""
import importlib
import json
from pathlib import Path

NAMES = (
    "c01_hooks_lifo",
    "c02_saved_hooks_innermost",
    "c03_full_backward_hook",
    "c04_grad_fn_hook_args",
    "c05_retain_grad_after_hooks",
    "c06_leaf_hook_vs_post_accumulate",
    "c07_multi_grad_hook",
    "c08_final_callbacks",
    "c09_tensor_used_twice",
    "c10_old_module_backward_hook",
    "c11_autograd_grad_hooks",
    "c12_ready_queue_order",
    "c13_hook_changes_shape",
    "c14_saved_hooks_inplace",
    "c15_grad_fn_replay",
    "c16_node_order_docs",
    "c17_checkpoint_reentrant_hooks",
    "c18_hook_before_inplace",
    "c19_view_hooks_copyslices",
    "c20_leaf_hooks_order",
    "c21_grad_fn_post_hooks_order",
    "c22_module_backward_hooks_prepend",
    "c23_global_module_hooks_first",
    "c24_module_pre_hook_not_first",
    "c25_leaves_ready_together_fifo",
    "c26_autograd_grad_touches_no_grad",
    "c27_multi_grad_all_once_per_pass",
    "c28_hook_modifies_grad_in_place",
    "c29_post_accumulate_only_when_accumulated",
    "c30_hook_on_unused_output",
    "c31_full_hook_grad_input_kwargs",
    "c32_handle_remove_same_pass",
    "c33_saved_hooks_around_backward",
    "c34_params_grad_in_full_hook",
    "c35_state_dict_hooks_parent_first",
    "c36_state_dict_post_hook_returns_dict",
    "c37_strict_load_fails_before_post_hooks",
    "c38_registration_hooks_every_registration",
    "c39_registration_hook_return_replaces",
    "c40_optimizer_global_step_hooks_first",
    "c41_step_pre_hook_args",
    "c42_dispatch_mode_around_backward",
)

VERDICTS = ("true", "false", "partly true")

#: Where PyTorch's recorded traces live: one JSON file per scenario.
TORCH_TRACES = Path(__file__).resolve().parent.parent / "torch_traces"


def load(name):
    """The scenario module ``name`` (e.g. "c01_hooks_lifo")."""
    return importlib.import_module(f"{__name__}.{name}")


def all_scenarios():
    """[(name, module)] for every registered scenario, in order."""
    return [(name, load(name)) for name in NAMES]


def torch_trace_path(name):
    """The file holding PyTorch 2.13's recorded trace of scenario ``name``."""
    return TORCH_TRACES / f"{name}.json"


def recorded_torch_trace(name):
    """PyTorch 2.13's trace of scenario ``name``, as recorded by
    ``tools/record_torch_traces.py`` (a list of lines, like ``run(torch)`` returns)."""
    path = torch_trace_path(name)
    if not path.exists():
        raise FileNotFoundError(f"no recording of {name} under PyTorch: run "
                                f"python tools/record_torch_traces.py {name}")
    return json.loads(path.read_text(encoding="utf-8"))["trace"]
