"""Claims about PyTorch hooks, each as a runnable scenario with a verdict.

Every module ``cNN_<name>`` exposes:

* ``CLAIM``   -- the claim as it is commonly stated (blog posts, Q&A answers);
* ``VERDICT`` -- "true", "false" or "partly true", as PyTorch 2.13 decides;
* ``WHY``     -- one paragraph: which engine rule causes the behaviour;
* ``run(torch) -> list[str]`` -- the scenario, using only the module it is given
  (real ``torch`` or ``minigrad``), returning deterministic trace lines;
* ``check(trace) -> None`` -- the verdict as assertions on the trace.

``NAMES`` is the registry, in notebook order.
"""
import importlib

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
)

VERDICTS = ("true", "false", "partly true")


def load(name):
    """The scenario module ``name`` (e.g. "c01_hooks_lifo")."""
    return importlib.import_module(f"{__name__}.{name}")


def all_scenarios():
    """[(name, module)] for every registered scenario, in order."""
    return [(name, load(name)) for name in NAMES]
