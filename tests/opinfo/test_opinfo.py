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
# one xdist worker for the sweep and docs/ops.md's check: PyTorch's databases are imported once
pytestmark = pytest.mark.xdist_group("opinfo")


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
def dbs():
    pytest.importorskip("torch")
    pytest.importorskip("expecttest")       # what torch.testing._internal needs
    return opinfo_sweep.databases()


@pytest.fixture(scope="module")
def sweeps(dbs):
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


def test_every_deprecation_claim_is_pytorchs_own():
    """Each name left out as deprecated has PyTorch's own sentence saying so (its docstring,
    or the message it raises or warns with); a name PyTorch stops calling deprecated fails."""
    pytest.importorskip("torch")
    import opinfo_groups
    for path in opinfo_groups.DEPRECATED:
        evidence = opinfo_groups.deprecation_evidence(path)
        assert "deprecated" in evidence or "removed" in evidence, (path, evidence)
    with pytest.raises(LookupError, match="does not say it is deprecated"):
        opinfo_groups.deprecation_evidence("torch.linalg.svd")


def test_the_comparison_can_fail():
    """compare() tells a wrong value, dtype, shape and type apart, and float32 rounding that
    PyTorch's own float32 result shows too is not held against minigrad."""
    torch = pytest.importorskip("torch")
    import minigrad
    tolerances = opinfo_sweep.DEFAULT_TOLERANCES
    expected = torch.tensor([1.0, 2.0, 3.0])
    opinfo_sweep.compare(expected, minigrad.tensor([1.0, 2.0, 3.0]), "out", tolerances)
    cases = [(minigrad.tensor([1.0, 2.5, 3.0]), "values differ at index (1,)"),
             (minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64), "dtype float64, expected float32"),
             (minigrad.tensor([1.0, 2.0]), "shape (2,), expected (3,)"),
             ((minigrad.tensor([1.0, 2.0, 3.0]),), "expected a Tensor, got tuple")]
    for actual, message in cases:
        with pytest.raises(opinfo_sweep.Mismatch, match=message.replace("(", r"\(").replace(")", r"\)")):
            opinfo_sweep.compare(expected, actual, "out", tolerances)
    # PyTorch's float32 result is 1e-4 off the exact 0.0; minigrad's exact 0.0 passes
    reference = opinfo_sweep.Reference(lambda: torch.tensor([0.0], dtype=torch.float64))
    off = torch.tensor([1e-4])
    opinfo_sweep.compare(off, minigrad.tensor([0.0]), "out", tolerances, reference=reference)
    with pytest.raises(opinfo_sweep.Mismatch):
        opinfo_sweep.compare(off, minigrad.tensor([1e-2]), "out", tolerances, reference=reference)


def test_a_stream_difference_names_the_first_differing_call():
    expected = ["aten.mul.Tensor(T[2]:float32, T[2]:float32)", "aten.sum.default(T[2]:float32)"]
    opinfo_sweep.compare_streams(expected, list(expected), "function")
    other = [expected[0], "aten.mean.default(T[2]:float32)"]
    with pytest.raises(opinfo_sweep.Mismatch, match="call 1: expected aten.sum.default, got aten.mean"):
        opinfo_sweep.compare_streams(expected, other, "function")
    with pytest.raises(opinfo_sweep.Mismatch, match=r"1 calls, expected 2 \(missing aten.sum.default"):
        opinfo_sweep.compare_streams(expected, expected[:1], "function")


@pytest.mark.torch
def test_the_harness_passes_pytorch_against_itself(dbs):
    """Every 20th entry of each database with PyTorch in minigrad's place: all must pass
    every stage, so what fails against minigrad is minigrad's (``--self-check`` runs all)."""
    import torch
    import opinfo_convert
    opinfo_convert.set_target(torch)
    try:
        runs = [opinfo_sweep.sweep(db, dbs[db][::20]) for db in opinfo_sweep.DATABASES]
    finally:
        opinfo_convert.set_target(opinfo_convert.minigrad)
    failing = [f"{r.name}: {r.stage}: {r.cause}" for run in runs for r in run.results if r.status == "fail"]
    assert sum(len(run.results) for run in runs) > 35
    assert not failing, "the harness fails PyTorch against itself:\n" + "\n".join(failing)
