"""``minigrad.utils._pytree``: flatten/unflatten round trips for every built-in node type,
PyTorch's spec printing and errors, registration, key paths. The differential script
``tests/compat/scripts/fw03_pytree.py`` compares real-code uses with PyTorch."""
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest

import minigrad as torch
from minigrad.utils import _pytree as pytree

P = namedtuple("P", ["x", "y"])
TREE = {"a": [1, (2, 3)], "b": P(4, None), "c": OrderedDict(z=5, w=6),
        "d": defaultdict(list, {"k": [7]}), "e": deque([8, 9], maxlen=3)}


def test_flatten_unflatten_round_trip_keeps_every_container_type():
    leaves, spec = pytree.tree_flatten(TREE)
    assert leaves == [1, 2, 3, 4, None, 5, 6, 7, 8, 9]
    back = pytree.tree_unflatten(leaves, spec)
    assert back == TREE and type(back["b"]) is P and type(back["c"]) is OrderedDict
    assert back["d"].default_factory is list and back["e"].maxlen == 3
    assert (spec.num_leaves, spec.num_nodes, spec.num_children) == (10, 18, 5)
    assert pytree.tree_unflatten(spec, leaves) == TREE      # the arguments either way round


def test_spec_prints_like_pytorchs():
    spec = pytree.tree_structure([1, {"a": 2, "b": (3,)}])
    assert repr(spec) == ("TreeSpec(list, None, [*,\n  TreeSpec(dict, ['a', 'b'], [*,\n"
                          "    TreeSpec(tuple, None, [*])])])")
    assert repr(pytree.tree_structure(5)) == "*" and pytree.tree_structure(5).is_leaf()
    with pytest.warns(FutureWarning, match="LeafSpec"):
        assert repr(pytree.LeafSpec()) == "*"
    assert pytree.tree_structure([1]) == pytree.tree_structure([2]) != pytree.tree_structure((1,))
    assert hash(pytree.tree_structure({"a": 1})) == hash(pytree.tree_structure({"a": 2}))


def test_maps():
    assert pytree.tree_map(lambda v: v + 1, {"a": [1, 2], "b": (3,)}) == {"a": [2, 3], "b": (4,)}
    assert pytree.tree_map(lambda a, b: a + b, {"x": 1, "y": 2}, {"y": 3, "x": 4}) == {"x": 5, "y": 5}
    assert pytree.tree_map_only((int, float), lambda v: -v, [1, 2.5, "s"]) == [-1, -2.5, "s"]
    t = torch.ones(2)
    shapes = pytree.tree_map_only(torch.Tensor, lambda x: tuple(x.shape), {"t": t, "n": 3})
    assert shapes == {"t": (2,), "n": 3}
    seen = []
    assert pytree.tree_map_(seen.append, [1, [2]]) == [1, [2]] and seen == [1, 2]
    assert pytree.tree_any(lambda v: v > 2, [1, [3]]) and not pytree.tree_all(lambda v: v > 2, [1, [3]])
    assert pytree.tree_all_only(int, lambda v: v > 0, [1, "x"]) and not pytree.tree_any_only(str, bool, [""])
    assert pytree.tree_leaves([1, [2, [3, []]], {}]) == [1, 2, 3]
    assert pytree.tree_flatten([1, 2], is_leaf=lambda x: isinstance(x, list))[0] == [[1, 2]]
    with pytest.raises(TypeError, match="a type, a tuple of types, or a callable"):
        pytree.tree_map_only(3, lambda v: v, [1])


@pytest.mark.parametrize("other, message", [
    ([1], "Node arity mismatch; expected 2, but got 1."),
    ((1, 2), "Node type mismatch; expected <class 'list'>, but got <class 'tuple'>."),
])
def test_mismatched_trees_raise_pytorchs_errors(other, message):
    with pytest.raises(ValueError) as info:
        pytree.tree_map(lambda a, b: a, [1, 2], other)
    assert str(info.value) == message
    with pytest.raises(ValueError, match="missing key.*'q'.*extra key.*'r'"):
        pytree.tree_map(lambda a, b: a, {"p": 1, "q": 2}, {"p": 1, "r": 2})
    with pytest.raises(ValueError, match="`leaves` has length 1 but the spec refers to a pytree that"):
        pytree.tree_unflatten([1], pytree.tree_structure([1, 2]))


def test_registration_and_key_paths():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    pytree.register_pytree_node(Pair, lambda p: ([p.a, p.b], "ctx"), lambda values, ctx: Pair(*values))
    try:
        leaves, spec = pytree.tree_flatten({"p": Pair(1, [2])})
        assert leaves == [1, 2] and spec.child(0).type is Pair and spec.child(0).context == "ctx"
        doubled = pytree.tree_map(lambda v: v * 2, Pair(1, 2))
        assert (doubled.a, doubled.b) == (2, 4)
        with pytest.raises(ValueError, match="already registered"):
            pytree.register_pytree_node(Pair, None, None)
        with pytest.raises(ValueError, match="flatten_with_keys_fn"):
            pytree.tree_flatten_with_path(Pair(1, 2))
    finally:
        del pytree.SUPPORTED_NODES[Pair]
    paths = pytree.tree_leaves_with_path({"a": [1, P(2, 3)]})
    assert [pytree.keystr(path) for path, _ in paths] == ["['a'][0]", "['a'][1].x", "['a'][1].y"]
    assert pytree.key_get({"a": [1, P(2, 3)]}, paths[2][0]) == 3
    assert pytree.tree_map_with_path(lambda path, v: len(path), {"a": [1]}) == {"a": [2]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pytree._register_pytree_node(Pair, lambda p: ([], None), lambda v, c: Pair(0, 0))
    del pytree.SUPPORTED_NODES[Pair]


def test_size_and_return_types_are_nodes_of_their_own_class():
    values_indices = torch.tensor([1.0, 3.0]).max(0)
    leaves, spec = pytree.tree_flatten(values_indices)
    assert spec.type is torch.return_types.max and spec.context is None and len(leaves) == 2
    rebuilt = pytree.tree_unflatten(leaves, spec)
    assert type(rebuilt) is torch.return_types.max and rebuilt.values is leaves[0]
    assert pytree.tree_unflatten([4, 5], pytree.tree_structure(torch.Size([2, 3]))) == torch.Size([4, 5])
