# Replacing weights through .data, and numpy views of .data.
import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(w.data)
print(w.data.requires_grad, w.data.is_leaf)
w.data = torch.tensor([0.5, 0.5, 0.5])
print(w)
print(w.requires_grad)
arr = w.data.numpy()
print(arr, arr.dtype, arr.shape)
arr[0] = 7.0
print(w)
w.data.mul_(2)
print(w)
loss = (w * w).sum()
loss.backward()
print(w.grad)
w.data.zero_()
print(w, w.grad)
print(loss.data)
