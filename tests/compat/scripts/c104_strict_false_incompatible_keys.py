# https://github.com/pytorch/pytorch/issues/9530
# load_state_dict(strict=False) tells you what did not match: missing_keys and unexpected_keys.
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)


class WithHead(Backbone):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(3, 2)


pretrained = WithHead().state_dict()
backbone = Backbone()
result = backbone.load_state_dict(pretrained, strict=False)
print(result)
print(type(result).__name__)
print("missing:", result.missing_keys)
print("unexpected:", result.unexpected_keys)
missing, unexpected = result
print(missing == [], unexpected)

model = WithHead()
result = model.load_state_dict(Backbone().state_dict(), strict=False)
print(result.missing_keys)
print(bool(result.missing_keys), len(result.unexpected_keys))
try:
    model.load_state_dict(Backbone().state_dict())
except RuntimeError as e:
    print(e)
