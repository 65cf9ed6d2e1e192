"""Shared by the tests of the lessons' exercise checks (tests/test_exercises_*.py)."""


def stub(*args, **kwargs):
    """What a student notebook's unanswered exercise does."""
    raise NotImplementedError("your code here")


def verdict(check, answer, capsys):
    """Run a lesson's check on ``answer``; it must print exactly its own verdict (and
    never raise). Returns the ``Result``."""
    result = check(answer)
    printed = capsys.readouterr().out
    assert printed.strip() == repr(result)
    return result
