"""PyTorch's own op and module test databases (OpInfo's ``op_db``, ``module_db``), run
on minigrad and compared with PyTorch: values, gradients and the aten stream
(``opinfo_sweep.py`` says how).

One interpreter does the whole sweep: the module fixture imports PyTorch's databases
once and runs every entry; the two tests then compare the outcome with
``expected.json``, which lists every entry failing today with the stage it fails at,
and every entry left out with its reason. A test fails when an entry not listed fails
(or fails at an earlier stage): a regression; and when a listed entry passes (or gets
further): lift it with ``python tests/opinfo/opinfo_sweep.py --update``, as a strict
xfail would. The summary line and the results (``build/opinfo/*.json``) are written by
the fixture; ``tests/conftest.py`` prints the line at the end of the pytest run.
"""
import json

import pytest

import opinfo_sweep


def test_expected_file_is_sorted_and_well_formed():
    """expected.json is what --update writes (sorted, one entry per line), each failing
    entry with a known stage and a cause."""
    text = opinfo_sweep.EXPECTED.read_text(encoding="utf-8")
    expected = opinfo_sweep.load_expected()
    assert set(json.loads(text)) == set(opinfo_sweep.DATABASES)
    assert opinfo_sweep.render_expected(expected) == text, "run python tests/opinfo/opinfo_sweep.py --update"
    for db in opinfo_sweep.DATABASES:
        for name, (stage, cause) in expected[db]["failing"].items():
            assert stage in opinfo_sweep.STAGES and cause, f"{db} {name}: {stage!r} {cause!r}"
        assert all(expected[db]["left out"].values())


@pytest.fixture(scope="module")
def sweeps():
    pytest.importorskip("torch")
    pytest.importorskip("expecttest")       # what torch.testing._internal needs
    dbs = opinfo_sweep.databases()
    runs = {db: opinfo_sweep.sweep(db, dbs[db]) for db in opinfo_sweep.DATABASES}
    opinfo_sweep.write_results(list(runs.values()))
    return runs


@pytest.mark.torch
@pytest.mark.parametrize("database", opinfo_sweep.DATABASES)
def test_every_entry_passes_or_fails_as_recorded(sweeps, database):
    run = sweeps[database]
    assert run.results, f"{database}: no entries ran"
    problems = opinfo_sweep.differences(opinfo_sweep.load_expected(), run, complete=True)
    assert not problems, (
        f"{database} differs from tests/opinfo/expected.json ({opinfo_sweep.summary_line([run])}):\n"
        + "\n".join(problems))
