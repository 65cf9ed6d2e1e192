"""``torch.utils._pytree``: nested containers ("pytrees") taken apart into their leaves and
put back together.

PyTorch counterpart: ``torch/utils/_pytree.py`` (the pure-Python implementation). A pytree
is a leaf or a *node*: a container of a registered type whose children are pytrees.
``tree_flatten(tree)`` returns the leaves, left to right, and a :class:`TreeSpec` that
records the node types and their *context* (a dict's keys, a namedtuple's class, a
deque's ``maxlen``); ``tree_unflatten(leaves, spec)`` rebuilds the tree, so
``tree_map(fn, tree)`` is flatten, map the leaves, unflatten. Registered from the start:
``tuple``, ``list``, ``dict``, every namedtuple class (under the one key
``namedtuple``), ``OrderedDict``, ``defaultdict``, ``deque``, ``torch.Size`` and the
``torch.return_types`` classes; anything else is a leaf (``None`` and tensors included)
until ``register_pytree_node(cls, flatten_fn, unflatten_fn)`` makes it a node.

Specs print, compare and raise as PyTorch's do (``TreeSpec(dict, ['a'], [*])``). Left
out: the JSON form of a spec (``treespec_dumps``/``treespec_loads``, for
``torch.export``) and the C++ (``optree``) implementation, ``torch.utils._cxx_pytree``.
"""
import dataclasses
import functools
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, NamedTuple, Optional

__all__ = ["PyTree", "Context", "TreeSpec", "LeafSpec", "KeyEntry", "SequenceKey", "MappingKey",
           "GetAttrKey", "SUPPORTED_NODES", "NodeDef", "register_pytree_node", "tree_flatten",
           "tree_flatten_with_path", "tree_unflatten", "tree_iter", "tree_leaves",
           "tree_leaves_with_path", "tree_structure", "tree_map", "tree_map_", "tree_map_with_path",
           "map_only", "tree_map_only", "tree_map_only_", "tree_all", "tree_any", "tree_all_only",
           "tree_any_only", "tree_is_leaf", "treespec_leaf", "treespec_tuple", "treespec_dict",
           "keystr", "key_get", "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance",
           "arg_tree_leaves"]

PyTree = Any
Context = Any


class NodeDef(NamedTuple):
    """How one node type comes apart: ``flatten_fn(node) -> (children, context)``,
    ``unflatten_fn(children, context) -> node`` and, for key paths,
    ``flatten_with_keys_fn(node) -> ([(key, child), ...], context)``."""
    type: Any
    flatten_fn: Callable
    unflatten_fn: Callable
    flatten_with_keys_fn: Optional[Callable] = None


SUPPORTED_NODES = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Make ``cls`` a node type. The serialization arguments are accepted for PyTorch's
    signature; minigrad has no JSON form of a spec to use them in."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(cls, flatten_fn, unflatten_fn,
                                  flatten_with_keys_fn=flatten_with_keys_fn)


def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None, maybe_from_str_fn=None, *,
                          serialized_type_name=None, to_dumpable_context=None,
                          from_dumpable_context=None, flatten_with_keys_fn=None):
    """The older private spelling (still called by some libraries): registers ``cls``,
    replacing an earlier registration with a warning."""
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn("`to_str_fn` and `maybe_from_str_fn` is deprecated. Please use "
                      "`to_dumpable_context` and `from_dumpable_context` instead.", FutureWarning,
                      stacklevel=2)
    _private_register_pytree_node(cls, flatten_fn, unflatten_fn,
                                  flatten_with_keys_fn=flatten_with_keys_fn)


def _private_register_pytree_node(cls, flatten_fn, unflatten_fn, *, flatten_with_keys_fn=None, **unused):
    if cls in SUPPORTED_NODES:
        warnings.warn(f"{cls} is already registered as pytree node. Overwriting the previous "
                      "registration.", stacklevel=3)
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)


# --- key paths: how a leaf is reached from the root ----------------------------------
@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """The position of a child in a list or tuple; prints as ``[0]``."""
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """The key of a child in a dict; prints as ``['a']``."""
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """The attribute holding a child (a namedtuple's field); prints as ``.x``."""
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


KeyEntry = (SequenceKey, MappingKey, GetAttrKey)


def keystr(kp):
    """A key path as the Python that reaches the leaf: ``['a'][0].x``."""
    return "".join(str(key) for key in kp)


def key_get(obj, kp):
    """The value a key path reaches in ``obj``."""
    for key in kp:
        obj = key.get(obj)
    return obj


# --- namedtuples -------------------------------------------------------------------------
def is_namedtuple_class(cls):
    """Whether ``cls`` was made by ``collections.namedtuple`` or ``typing.NamedTuple``."""
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(field) is str for field in cls._fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple(obj):
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj):
    return is_namedtuple_class(type(obj))


def _node_type(tree):
    """The registry key of ``tree``: its type, or ``namedtuple`` for every namedtuple."""
    cls = type(tree)
    return namedtuple if is_namedtuple_class(cls) else cls


# --- the built-in node types: (children, context) and back ---------------------------------
def _sequence_with_keys(flatten):
    def with_keys(node):
        children, context = flatten(node)
        return [(SequenceKey(i), child) for i, child in enumerate(children)], context
    return with_keys


def _mapping_with_keys(keys_of):
    def with_keys(node):
        keys = keys_of(node)
        return [(MappingKey(k), node[k]) for k in keys], _BUILTIN_FLATTEN[type(node)](node)[1]
    return with_keys


def _flatten_dict(d):
    return list(d.values()), list(d.keys())


def _flatten_namedtuple(t):
    return list(t), type(t)


def _namedtuple_with_keys(t):
    return [(GetAttrKey(field), value) for field, value in zip(t._fields, t)], type(t)


def _flatten_defaultdict(d):
    return list(d.values()), [d.default_factory, list(d.keys())]


def _flatten_deque(d):
    return list(d), d.maxlen


_BUILTIN_FLATTEN = {
    tuple: lambda t: (list(t), None),
    list: lambda items: (items, None),
    dict: _flatten_dict,
    OrderedDict: _flatten_dict,
    defaultdict: _flatten_defaultdict,
    deque: _flatten_deque,
}
_BUILTIN_UNFLATTEN = {
    tuple: lambda values, context: tuple(values),
    list: lambda values, context: list(values),
    dict: lambda values, keys: dict(zip(keys, values)),
    OrderedDict: lambda values, keys: OrderedDict(zip(keys, values)),
    defaultdict: lambda values, context: defaultdict(context[0], zip(context[1], values)),
    deque: lambda values, maxlen: deque(values, maxlen=maxlen),
}
for _cls in (tuple, list, deque):
    _private_register_pytree_node(_cls, _BUILTIN_FLATTEN[_cls], _BUILTIN_UNFLATTEN[_cls],
                                  flatten_with_keys_fn=_sequence_with_keys(_BUILTIN_FLATTEN[_cls]))
for _cls in (dict, OrderedDict, defaultdict):
    _private_register_pytree_node(_cls, _BUILTIN_FLATTEN[_cls], _BUILTIN_UNFLATTEN[_cls],
                                  flatten_with_keys_fn=_mapping_with_keys(list))
_private_register_pytree_node(namedtuple, _flatten_namedtuple, lambda values, cls: cls(*values),
                              flatten_with_keys_fn=_namedtuple_with_keys)
del _cls

BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})
_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})


def tree_is_leaf(tree, is_leaf=None):
    """Whether ``tree`` is a leaf: ``is_leaf(tree)`` says so, or its type is no node."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


# --- TreeSpec ----------------------------------------------------------------------------
class TreeSpec:
    """The structure of a pytree: the root's node ``type`` (None for a leaf), its
    ``context`` and one spec per child. Prints as PyTorch's, a leaf as ``*``:
    ``TreeSpec(list, None, [*, TreeSpec(dict, ['a'], [*])])`` with PyTorch's line breaks."""

    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type, context, children_specs):
        self.type = type
        self._context = context
        self._children = list(children_specs)
        if type is None:
            if context is not None or self._children:
                raise AssertionError("a leaf spec has no context and no children")
            self.num_nodes = self.num_leaves = 1
        else:
            self.num_nodes = 1 + sum(child.num_nodes for child in self._children)
            self.num_leaves = sum(child.num_leaves for child in self._children)
        self.num_children = len(self._children)

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self):
        warnings.warn("`treespec.children_specs` is deprecated. Use `treespec.child(index)` to "
                      "access a single child, or `treespec.children()` to get all children.",
                      FutureWarning, stacklevel=2)
        return self._children

    def is_leaf(self):
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def __repr__(self, indent=0):
        if self.type is None:
            return "*"
        text = f"TreeSpec({self.type.__name__}, {self._context}, ["
        if self._children:
            indent += 2
            text += ",".join([self._children[0].__repr__(indent)]
                             + ["\n" + " " * indent + child.__repr__(indent)
                                for child in self._children[1:]])
        return text + "])"

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self):
        context = self._context
        if self.type is defaultdict:
            context = (context[0], tuple(context[1]))
        elif self.type in (dict, OrderedDict):
            context = tuple(context)
        elif self.type is not None and self.type not in BUILTIN_TYPES:
            context = None      # a user type's context may not be hashable
        return hash((self.type, context, tuple(self._children)))

    def unflatten(self, leaves):
        """The pytree of this structure holding ``leaves`` (in order)."""
        leaves = leaves if isinstance(leaves, (list, tuple)) else list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the "
                             f"spec refers to a pytree that holds {self.num_leaves} items ({self}).")
        if self.type is None:
            return leaves[0]
        children, start = [], 0
        for child in self._children:
            children.append(child.unflatten(leaves[start:start + child.num_leaves]))
            start += child.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this spec's leaves (``tree`` must have this
        structure down to them): what ``tree_map`` pairs with the first tree's leaves."""
        subtrees = []
        self._flatten_up_to(tree, subtrees)
        return subtrees

    def _flatten_up_to(self, node, subtrees):
        if self.is_leaf():
            subtrees.append(node)
            return
        node_type = _node_type(node)
        if self.type in _DICT_TYPES and node_type in _DICT_TYPES:
            expected = self._context[1] if self.type is defaultdict else self._context
            missing, extra = set(expected) - set(node), set(node) - set(expected)
            if missing or extra:
                raise ValueError("Node keys mismatch" + (f"; missing key(s): {missing}" if missing else "")
                                 + (f"; extra key(s): {extra}" if extra else "") + ".")
            children = [node[key] for key in expected]
        else:
            if node_type != self.type:
                kind = "Node type" if self.type in BUILTIN_TYPES else "Type"
                raise ValueError(f"{kind} mismatch; expected {self.type!r}, but got {node_type!r}.")
            children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
            if len(children) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, "
                                 f"but got {len(children)}.")
            if node_type is not deque and context != self._context:
                raise ValueError(f"Node context mismatch for node type {self.type!r}; "
                                 f"expected {self._context!r}, but got {context!r}.")
        for child_spec, child in zip(self._children, children):
            child_spec._flatten_up_to(child, subtrees)


class LeafSpec(TreeSpec):
    """The spec of a leaf (``*``). PyTorch deprecates making one directly (use
    ``treespec_leaf()``, and ``spec.is_leaf()`` to test)."""

    __slots__ = ()

    def __init__(self):
        warnings.warn("`isinstance(treespec, LeafSpec)` is deprecated, use "
                      "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__(None, None, [])


_LEAF = TreeSpec(None, None, [])


def treespec_leaf():
    return _LEAF


def treespec_tuple(iterable=()):
    return TreeSpec(tuple, None, list(iterable))


def treespec_dict(mapping=(), **kwargs):
    items = dict(mapping, **kwargs)
    return TreeSpec(dict, list(items), list(items.values()))


# --- flatten, unflatten, map ---------------------------------------------------------------
def tree_flatten(tree, is_leaf=None):
    """``(leaves, spec)``: the leaves left to right and the structure around them."""
    leaves = []

    def visit(node):
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF
        node_type = _node_type(node)
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        return TreeSpec(node_type, context, [visit(child) for child in children])

    spec = visit(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The pytree of structure ``treespec`` holding ``leaves`` (the arguments may also come
    the other way round, as PyTorch allows)."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of "
                            f"type {type(treespec)}.")
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """The leaves, one at a time."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None):
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """The tree of ``func(leaf, *leaves_of_rests)``: ``tree`` gives the structure; each of
    ``rests`` must have it down to ``tree``'s leaves (dicts match by key)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(rest) for rest in rests]
    return spec.unflatten(map(func, leaves, *others))


def tree_map_(func, tree, *rests, is_leaf=None):
    """``func`` on every leaf, for its effect; returns ``tree`` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(rest) for rest in rests]
    for args in zip(leaves, *others):
        func(*args)
    return tree


def map_only(type_or_types_or_pred):
    """A decorator: ``func`` applied only to leaves of the given type(s), or for which the
    predicate is true; other leaves pass through unchanged."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None):
    """``tree_map`` over the leaves of the given type(s) only (``tree_map_only(torch.Tensor,
    fn, args)``, the way dispatch modes unwrap their arguments)."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None):
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred, tree, is_leaf=None):
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def arg_tree_leaves(*args, **kwargs):
    """The leaves of a call's arguments: ``tree_leaves((args, kwargs))`` without the
    containers' own structure."""
    return tree_leaves(args) + tree_leaves(kwargs)


# --- with key paths ------------------------------------------------------------------------
def _key_paths(path, tree, is_leaf):
    if (is_leaf is not None and is_leaf(tree)) or _node_type(tree) not in SUPPORTED_NODES:
        yield path, tree
        return
    node_type = _node_type(tree)
    with_keys = SUPPORTED_NODES[node_type].flatten_with_keys_fn
    if with_keys is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node_type}. Please pass a "
                         "flatten_with_keys_fn argument to register_pytree_node.")
    for key, child in with_keys(tree)[0]:
        yield from _key_paths((*path, key), child, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(key_path, leaf), ...], spec)``; a key path is a tuple of ``SequenceKey``,
    ``MappingKey`` and ``GetAttrKey`` (``keystr`` prints it)."""
    return list(_key_paths((), tree, is_leaf)), tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None):
    return list(_key_paths((), tree, is_leaf))


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """The tree of ``func(key_path, leaf, *leaves_of_rests)``."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    others = [spec.flatten_up_to(rest) for rest in rests]
    return spec.unflatten(func(path, leaf, *more) for (path, leaf), *more in zip(pairs, *others))


def _register_minigrad_sequences():
    """``torch.Size`` and the ``torch.return_types`` tuples are nodes with no context, as
    PyTorch registers them (by their own class, not as namedtuples)."""
    from .. import return_types
    from .._tensor_methods import Size
    def flatten(seq):
        return list(seq), None
    _private_register_pytree_node(Size, flatten, lambda values, context: Size(values),
                                  flatten_with_keys_fn=_sequence_with_keys(flatten))
    for name in return_types.__all__:
        cls = getattr(return_types, name)
        _private_register_pytree_node(cls, flatten, lambda values, context, cls=cls: cls(*values),
                                      flatten_with_keys_fn=_sequence_with_keys(flatten))


_register_minigrad_sequences()
