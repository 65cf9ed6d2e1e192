# https://pytorch.org/docs/master/autograd.html
# in-place correctness checks and anomaly detection: the in-place modification error, its "enable anomaly
# detection" hint, and what anomaly mode adds.
import warnings

import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = w.sigmoid()
loss = (h * 2).sum()
h.mul_(3)
try:
    loss.backward()
except RuntimeError as e:
    print(e)

with warnings.catch_warnings(record=True) as caught, torch.autograd.detect_anomaly():
    warnings.simplefilter("always")
    h = w.sigmoid()
    loss = (h * 2).sum()
    h.mul_(3)
    try:
        loss.backward()
    except RuntimeError as e:
        print(e)
for warning in caught:
    lines = str(warning.message).splitlines()
    print(warning.category.__name__, lines[0])
    print([line.strip() for line in lines if "h = w.sigmoid()" in line])

h = w.sigmoid()
loss = (h * 2).sum()
h = h * 3  # out of place: the saved output stays as it was
loss.backward()
print(w.grad)
