"""A prediction exercise's feedback teaches without giving the answer away.

For every prediction exercise of the course (the registry's ``predict_*``), wrong answers
of every kind a learner might throw at the check (the names in the order they are listed,
reversed, each pair swapped, shuffles, numbers off by one, values left out) get a ❌ whose
message never contains the right answer: not the whole order, not the whole set of values.
The first miss and why stay (each check's own tests ask for them): one throwaway guess must
not replace the prediction.
"""
import itertools
import json
import random
from pathlib import Path

import pytest

from minigrad.exercises.registry import EXERCISES

from exercise_support import prediction_answer, reveals

ROOT = Path(__file__).resolve().parents[1]
PREDICTIONS = [(e, path) for path in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
               for e in EXERCISES.get(json.loads(path.read_text())["metadata"]["minigrad"]["lesson"], ())
               if e.name.startswith("predict")]


def test_every_lesson_with_a_prediction_is_covered():
    assert {e.lesson for e, _ in PREDICTIONS} >= {"01", "02", "03", "04", "05", "06", "08", "11"}


def _orders(right):
    """Wrong orders of the names of ``right``: sorted, reversed, every pair swapped, every
    rotation, shuffles, and one name left out."""
    right = list(right)
    seen = {tuple(right)}
    candidates = [sorted(right), right[::-1]]
    for i, j in itertools.combinations(range(len(right)), 2):
        swapped = list(right)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        candidates.append(swapped)
    candidates += [right[k:] + right[:k] for k in range(1, len(right))]
    rng = random.Random(0)
    for _ in range(20):
        candidates.append(rng.sample(right, len(right)))
    candidates += [right[:-1], right[1:]]
    for order in candidates:
        if tuple(order) not in seen:
            seen.add(tuple(order))
            yield order


def _numbers(value):
    """Wrong versions of a list of floats: each entry off by one, all zeros, None."""
    value = list(value)
    for i in range(len(value)):
        yield value[:i] + [value[i] + 1.0] + value[i + 1:]
    yield [0.0] * len(value)
    yield [v * 2 for v in value]


def _wrong_answers(right):
    """Wrong answers shaped like ``right``, the instructor's answer."""
    if isinstance(right, (list, tuple)) and right and all(isinstance(r, str) for r in right):
        yield from _orders(right)
    elif isinstance(right, (list, tuple)) and len(right) == 2:            # (a list, a list)
        first, second = right
        wrongs = _orders if all(isinstance(r, str) for r in first) else _numbers
        for w in wrongs(first):
            yield (w, list(second))
        for w in wrongs(second):
            yield (list(first), w)
        yield (list(second), list(first))
    elif isinstance(right, dict):
        for key, value in right.items():
            alternatives = [None]
            if isinstance(value, (int, float)):
                alternatives = [value - 1, value + 1, 0, 2 * value + 1]
            elif isinstance(value, list):
                alternatives = [None, *_numbers(value)]
            elif isinstance(value, tuple):
                alternatives = [None, tuple([1.0, 1.0] for _ in value)]
            else:
                alternatives = [[1.0, 1.0], [0.0, 0.0]]
            for alternative in alternatives:
                if alternative != value:
                    yield {**right, key: alternative}
        if all(isinstance(v, int) for v in right.values()):
            for counts in itertools.product(range(5), repeat=len(right)):
                guess = dict(zip(right, counts))
                if guess != right:
                    yield guess
    else:
        raise AssertionError(f"no wrong answers for an answer like {right!r}")


ORDER_AND_VALUE_PREDICTIONS = [(e, p) for e, p in PREDICTIONS if e.name != "predict_chain"]


@pytest.mark.parametrize("exercise, path", ORDER_AND_VALUE_PREDICTIONS,
                         ids=[e.name for e, _ in ORDER_AND_VALUE_PREDICTIONS])
def test_no_wrong_answer_gets_the_answer_back(exercise, path, capsys):
    right = prediction_answer(path, exercise)
    check = exercise.load_check()
    assert check(lambda: right), f"{exercise.name}: the instructor's answer {right!r} must pass"
    tried = 0
    for wrong in _wrong_answers(right):
        if wrong == right or (isinstance(wrong, tuple) and list(wrong) == list(right)):
            continue                      # (packs and unpacks may be the same list)
        result = check(lambda: wrong)
        capsys.readouterr()
        assert not result, f"{exercise.name}: the wrong answer {wrong!r} passed"
        assert not reveals(right, result.message), (
            f"{exercise.name}: the feedback on {wrong!r} gives the answer {right!r} away:\n{result.message}")
        tried += 1
    assert tried >= 5


def test_the_chain_prediction_never_shows_the_engines_value(capsys):
    """``predict_chain`` predicts a rule: no wrong rule is told what the engine computes."""
    from minigrad.exercises import lesson02
    import minigrad as torch

    def chained(g, hooks, order=lambda hs: hs, each_on_original=False):
        value = g
        for hook in order(hooks):
            result = hook(g if each_on_original else value)
            value = value if result is None else result
        return value
    wrong_rules = [lambda g, hooks: chained(g, hooks, order=lambda hs: hs[::-1]),
                   lambda g, hooks: chained(g, hooks, each_on_original=True),
                   lambda g, hooks: g,
                   lambda g, hooks: g * 2]
    for rule in wrong_rules:
        result = lesson02.check_predict_chain(rule)
        capsys.readouterr()
        assert not result
        for names in (["double", "add_one"], ["add_one", "double"],
                      ["double", "observe", "add_one", "square"], ["negate", "observe"]):
            hooks = [dict(lesson02._hooks())[n] for n in names]
            g = torch.tensor([1.0, -2.0, 3.0])
            engine_value = chained(g, hooks).tolist()
            if f"hooks {names}" in result.message:
                assert not reveals(engine_value, result.message.partition("returns")[2]), result.message
