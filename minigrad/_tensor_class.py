"""Where the autograd core finds the ``Tensor`` class without importing it.

``minigrad._tensor`` imports the autograd core (a tensor records nodes and runs hooks),
so the core (``autograd/graph.py``, ``engine.py``, saved values) cannot import
``minigrad._tensor`` back without an import cycle. PyTorch has the same problem and the
same answer: its C++ autograd makes Python tensors through a pointer to the Python class
(``THPVariableClass``), filled in once ``torch._tensor`` has defined ``Tensor``. Here
``minigrad._tensor`` calls :func:`register` right after the class statement, and the
core reads ``_tensor_class.Tensor`` when it runs, never at import.
"""

Tensor = None   # minigrad.Tensor, once minigrad._tensor has been imported


def register(cls):
    """Make ``cls`` the class the autograd core creates and recognises."""
    global Tensor
    Tensor = cls
    return cls
