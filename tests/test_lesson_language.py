"""The widgets speak the lesson's language, chosen by the notebook's folder.

The English and the Chinese copy of a lesson run the same code; the kernel's working
directory (the notebook's folder under Jupyter, nbval and nbconvert) or MINIGRAD_LANG says
which copy runs, and only widget labels change (minigrad/viz/_language.py)."""
import re
import string

import pytest

import minigrad as torch
from minigrad.viz import _language, interact

widgets = pytest.importorskip("ipywidgets")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """chdir into ``tmp_path/<relative>``, as Jupyter starts a kernel in the notebook's folder."""
    monkeypatch.delenv("MINIGRAD_LANG", raising=False)

    def go(relative):
        path = tmp_path / relative
        path.mkdir(parents=True, exist_ok=True)
        monkeypatch.chdir(path)
        return path
    return go


@pytest.mark.parametrize("relative, language", [
    ("lessons", "en"), ("lessons/student", "en"), ("lessons/zh", "zh"),
    ("lessons/zh/student", "zh"), ("course/zh", "zh"), ("zh/lessons", "en"), ("zh-notes", "en")])
def test_the_folder_chooses_the_language(folder, relative, language):
    folder(relative)
    assert _language.lesson_language() == language


def test_the_environment_overrides_the_folder(folder, monkeypatch):
    folder("lessons/zh")
    monkeypatch.setenv("MINIGRAD_LANG", "en")
    assert _language.lesson_language() == "en"
    folder("lessons")
    monkeypatch.setenv("MINIGRAD_LANG", "ZH")
    assert _language.lesson_language() == "zh"
    monkeypatch.setenv("MINIGRAD_LANG", "fr")
    with pytest.raises(ValueError, match="MINIGRAD_LANG='fr': use one of en, zh"):
        _language.lesson_language()


def test_each_translation_fills_the_same_fields():
    def fields(template):
        return sorted(name for _, name, _, _ in string.Formatter().parse(template) if name)
    for english, chinese in _language._ZH.items():
        assert fields(english) == fields(chinese), english
        assert re.search(r"[\u4e00-\u9fff]", chinese), f"{english!r} is not translated: {chinese!r}"


def test_text_translates_in_zh_and_keeps_english_elsewhere(folder):
    folder("lessons")
    assert _language.text("step {n}", n=3) == "step 3"
    assert _language.text("no translation for this") == "no translation for this"
    folder("lessons/zh")
    assert _language.text("step {n}", n=3) == "第 3 步"
    assert _language.text("no translation for this") == "no translation for this"


def _explore(expression, x_value):
    return None


@pytest.mark.parametrize("relative, labels", [("lessons", ["expression", "x_value"]),
                                              ("lessons/zh", ["表达式", "x 的取值"])])
def test_interact_labels_its_controls_in_the_lessons_language(folder, relative, labels, capsys):
    folder(relative)
    returned = interact(_explore, expression=["x * w", "x * x"],
                        x_value=widgets.FloatSlider(value=1.0, min=-3.0, max=3.0))
    assert returned is _explore
    assert [w.description for w in _explore.widget.kwargs_widgets] == labels
    # otherwise what ipywidgets.interact makes: the same controls, the same values
    assert _explore.widget.kwargs == {"expression": "x * w", "x_value": 1.0}
    capsys.readouterr()


def test_the_engine_stepper_speaks_chinese_in_the_chinese_copy(folder):
    from minigrad.viz import EngineStepper
    folder("lessons/zh")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    stepper = EngineStepper((x * 3).sum(), labels={x: "x"})
    assert [b.description for b in (stepper.step_button, stepper.run_button, stepper.reset_button)] \
        == ["单步", "运行到底", "重置"]
    assert "点击 <b>单步</b>" in stepper.status.value and "等待中" in stepper.legend.value
    stepper.step()
    assert stepper.status.value.startswith("第 1 步")
    assert "就绪队列（从上往下弹出）" in stepper.queue.value
    stepper.run_to_end()
    assert "反向传播在" in stepper.status.value
    folder("lessons")
    english = EngineStepper((x * 3).sum(), labels={x: "x"})
    assert english.step_button.description == "Step" and "waiting" in english.legend.value
