# A 3-class classifier: cross-entropy, argmax accuracy, softmax probabilities.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(2, 3)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]))
    model.bias.zero_()
x = torch.tensor([[2.0, 0.0], [0.0, 2.0], [-1.0, -1.0], [1.0, 1.5]])
y = torch.tensor([0, 1, 2, 0])
logits = model(x)
loss = F.cross_entropy(logits, y)
pred = logits.argmax(dim=1)
acc = (pred == y).float().mean()
print(f"loss {loss:.4f} acc {acc:.2f}")
print(pred)
print(F.softmax(logits, dim=1))
correct = (pred == y).sum().item()
print(f"Accuracy: {100 * correct / len(y):.1f}% ({correct}/{len(y)})")
loss.backward()
print(model.weight.grad)
_, top = torch.max(logits, 1)
print(top)
print(torch.topk(logits, 2, dim=1).indices)
