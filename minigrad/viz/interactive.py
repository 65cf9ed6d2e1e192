"""``interact``: ipywidgets' ``interact`` with its labels in the lesson's language.

The lessons' interactive cells are the same code in English and in Chinese
(``lessons/zh/``); the label of each control is the name of the function's parameter,
translated here when the Chinese copy runs (see ``minigrad/viz/_language.py``). No
PyTorch counterpart: a course aid.
"""
from ._language import text as _text

__all__ = ["interact"]


def interact(function, **controls):
    """Show ``function``'s controls and call it whenever one changes, exactly as
    ``ipywidgets.interact(function, **controls)`` does (a control may be a widget or one of
    ipywidgets' abbreviations: a list, a range tuple, a number), with each control's
    label translated into the lesson's language. Returns ``function``, with the
    ``interactive`` box as its ``widget`` attribute."""
    import ipywidgets as widgets
    from IPython.display import display
    from ipywidgets.widgets.interaction import show_inline_matplotlib_plots

    box = widgets.interactive(function, **controls)
    for control in box.kwargs_widgets:
        control.description = _text(control.description)
    function.widget = box
    show_inline_matplotlib_plots()
    display(box)
    return function
