"""The language of the lesson being run, which the widgets' labels follow.

The course exists in English (``lessons/``) and in Simplified Chinese (``lessons/zh/``),
and the two copies of a lesson have the same code cells, so the code cannot say which
language to speak. The folder does: Jupyter, nbval and ``jupyter nbconvert --execute``
start a notebook's kernel in the notebook's own folder, so a kernel whose working
directory is a folder named ``zh`` (``lessons/zh``, or its ``student`` folder) runs the
Chinese copy. ``MINIGRAD_LANG=zh`` (or ``en``) in the environment overrides the folder.

Only what a widget shows changes: button and slider labels, the stepper's panels.
Printed output, the checks' messages and the plots stay in English in both copies, so
the two copies print the same thing (and matplotlib's default fonts have no Chinese
glyphs). No PyTorch counterpart: a course aid.
"""
import os
from pathlib import Path

__all__ = ["lesson_language", "text"]

#: the languages of the course: English (the source) and Simplified Chinese
LANGUAGES = ("en", "zh")

# English text (a str.format template) -> its Chinese. A text missing here stays English.
_ZH = {
    # the parameters that lessons' interact() calls expose, by name
    "expression": "表达式",
    "x_value": "x 的取值",
    "name": "场景",
    "max_norm": "最大范数",
    "max_depth": "最大深度",
    "position": "位置",
    "kind": "类型",
    "mode": "模式",
    "strategy": "策略",
    "bucket_size": "桶大小",
    "fast": "快进程",
    "slow": "慢进程",
    "index": "序号",
    "run": "训练",
    "step": "步数",
    "decay": "衰减率",
    # lesson 05: the terms the loss uses (a * 2, b * 3, c)
    "use_a": "a * 2 项",
    "use_b": "b * 3 项",
    "use_c": "c 项",
    # EngineStepper
    "Step": "单步",
    "Run to end": "运行到底",
    "Reset": "重置",
    "Next hook": "下一个钩子",
    "Ready queue (pops from the top)": "就绪队列（从上往下弹出）",
    "Dependencies left": "剩余依赖数",
    "Input buffers (gradients gathered)": "输入缓冲区（已收到的梯度）",
    "not recorded: these events carry no engine state (a replay)": "未记录：这些事件不带引擎状态（这是回放）",
    "the engine has not started: press <b>Step</b>": "引擎还没开始：点击 <b>单步</b>",
    "cannot tell ({error})": "无法判断（{error}）",
    "none: the pass ends": "没有了：本次反向传播结束",
    "none at {node}, the next node": "下一个节点 {node} 上没有钩子",
    "none left at {node} (then the queue decides)": "{node} 上已没有钩子（接下来由就绪队列决定）",
    "next step": "下一步",
    "the pass ends": "反向传播结束",
    "empty": "空",
    "none (the root only)": "无（只有根节点）",
    "none held": "没有正在积攒的梯度",
    "stopped after {n} events: {error}": "在第 {n} 个事件后停止：{error}",
    "done": "完成",
    "the backward pass finished after {n} events": "反向传播在 {n} 个事件后结束",
    "ready: press <b>Step</b> to run the engine's first step":
        "就绪：点击 <b>单步</b> 执行引擎的第一步",
    "step {n}": "第 {n} 步",
    "at": "位于",
    "nodes": "节点",
    "events": "事件",
    "node (backward formula)": "节点（反向公式）",
    "leaf (AccumulateGrad)": "叶子（AccumulateGrad）",
    "running now": "正在运行",
    "ready (in the queue)": "就绪（在队列中）",
    "waiting (gradients still to come)": "等待中（还有梯度未到）",
}

_TABLES = {"en": {}, "zh": _ZH}


def lesson_language():
    """``"zh"`` when the lesson running is the Chinese copy, else ``"en"``: the
    ``MINIGRAD_LANG`` environment variable if set, else the kernel's working directory
    (a folder named ``zh``, or a ``student`` folder inside one, is Chinese)."""
    chosen = os.environ.get("MINIGRAD_LANG", "").strip().lower()
    if chosen:
        if chosen not in LANGUAGES:
            raise ValueError(f"MINIGRAD_LANG={chosen!r}: use one of {', '.join(LANGUAGES)}")
        return chosen
    here = Path.cwd()
    if here.name == "zh" or (here.name == "student" and here.parent.name == "zh"):
        return "zh"
    return "en"


def text(english, **fields):
    """``english`` (a ``str.format`` template, filled with ``fields``) in the lesson's
    language: its translation when there is one, else the English."""
    return _TABLES[lesson_language()].get(english, english).format(**fields)
