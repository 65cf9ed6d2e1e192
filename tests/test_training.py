"""The two small models train on the bundled digits to their stated test accuracy,
deterministically (fixed seeds), in seconds."""
import io

from minigrad import models


def test_mlp_reaches_95_percent():
    result = models.train(models.make_mlp(), progress=False)
    assert result["test_accuracy"] >= 0.95, result
    assert result["losses"][-1] < result["losses"][0]


def test_cnn_reaches_97_percent():
    result = models.train(models.make_cnn(), progress=False)
    assert result["test_accuracy"] >= 0.97, result


def test_training_is_deterministic():
    a = models.train(models.make_mlp(hidden=16), epochs=2, progress=False)
    b = models.train(models.make_mlp(hidden=16), epochs=2, progress=False)
    assert a["losses"] == b["losses"] and a["test_accuracy"] == b["test_accuracy"]


def test_progress_line():
    bar = models._Progress(True, stream=io.StringIO())
    bar.update("epoch 1/2 loss 1.0000")
    bar.update("epoch 2/2")
    bar.close()
    text = bar.stream.getvalue()
    assert text.startswith("\repoch 1/2") and text.endswith("\n") and "\repoch 2/2" in text
