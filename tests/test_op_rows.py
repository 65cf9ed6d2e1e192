"""Op rows check themselves: a name that is neither an input nor an output fails when
the row is built, a formula that reads a name its row does not have says which names it
has, and no forward function receives the node-only metadata ``_record`` stores."""
import inspect

import numpy as np
import pytest

import minigrad as torch
from minigrad import _ops
from minigrad import nn
from minigrad._dispatch import Op
from minigrad.nn import functional as F


def _rows():
    return [row for module in (_ops, F) for row in vars(module).values() if isinstance(row, Op)]


def test_a_saved_name_that_is_no_input_fails_when_the_row_is_built():
    with pytest.raises(ValueError, match=r"op row 'scale' \(ScaleBackward0\) names \['slef'\]"):
        Op("scale", "ScaleBackward0", np.multiply, ("self", "other"), saves={"slef": None},
           grads={"self": lambda g, ctx: g})


def test_a_gradient_for_no_input_fails_when_the_row_is_built():
    with pytest.raises(ValueError, match=r"names \['othre'\].*neither an input \['other', 'self'\]"):
        Op("scale", "ScaleBackward0", np.multiply, ("self", "other"),
           grads={"othre": lambda g, ctx: g})


def test_metadata_of_no_input_fails_when_the_row_is_built():
    with pytest.raises(ValueError, match=r"saved attribute 'input_sym_sizes' names no input"):
        Op("scale", "ScaleBackward0", np.multiply, ("self", "other"),
           saved_attrs=("input_sym_sizes",), grads={"self": lambda g, ctx: g})


def test_a_formula_reading_a_missing_name_says_which_names_the_row_has(monkeypatch):
    monkeypatch.setitem(_ops.exp.grads, "self", lambda g, ctx: g * ctx.reslt)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(AttributeError, match=r"ExpBackward0 formula reads ctx\.reslt.*it has: result"):
        x.exp().sum().backward()


def test_forward_functions_receive_no_node_only_metadata():
    offenders = []
    for row in _rows():
        try:
            parameters = inspect.signature(row.forward).parameters
        except (TypeError, ValueError):         # numpy ufuncs: no Python signature
            continue
        offenders += [f"{row.name}({name})" for name in parameters if "_sym_" in name]
    assert not offenders, f"forward functions taking node metadata: {offenders}"


@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_reads_its_bias_sizes_from_the_bias_it_was_given(bias):
    conv = nn.Conv2d(2, 3, 3, bias=bias)
    y = conv(torch.randn(1, 2, 5, 5))
    assert y.grad_fn._saved_bias_sym_sizes_opt == ((3,) if bias else (0,))
    assert (y.grad_fn.next_functions[2][0] is None) is not bias
