# https://PyTorch.org/docs/stable/_modules/torch/autograd/anomaly_mode.html
# set_detect_anomaly(mode, check_nan): the two switches, as a context manager and as a plain call.
import warnings

import torch

print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
with torch.autograd.set_detect_anomaly(True, check_nan=False):
    print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    x = torch.zeros(1, requires_grad=True)
    (x.sqrt() * 0).sum().backward()
    print("no error without check_nan:", x.grad)
print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())

with warnings.catch_warnings(record=True) as caught, torch.autograd.detect_anomaly(check_nan=True):
    warnings.simplefilter("always")
    x = torch.zeros(1, requires_grad=True)
    try:
        (x.sqrt() * 0).sum().backward()
    except RuntimeError as e:
        print(e)
print([str(w.message).splitlines()[0] for w in caught if issubclass(w.category, UserWarning)])


torch.autograd.set_detect_anomaly(True)
print("after the call:", torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
torch.autograd.set_detect_anomaly(False)
print(torch.is_anomaly_enabled())
