# https://kiwix.lema.org/stackoverflow.com_en_all_2023-11/questions/61854165/why-must-use-dataparallel-when-testing
# a DataParallel checkpoint has "module." keys: strip them to load into the plain model.
import torch
import torch.nn as nn


class NestedUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, kernel_size=3, padding=1)

    def forward(self, x):
        return self.conv1(x)


model = NestedUNet()
print(model.state_dict().keys())
model_dp = nn.DataParallel(model)
print(model_dp.state_dict().keys())
print(type(model_dp.module).__name__)

with torch.no_grad():
    model_dp.module.conv1.bias.copy_(torch.tensor([1.0, 2.0, 3.0, 4.0]))
pretrained_dict = model_dp.state_dict()

fresh = NestedUNet()
try:
    fresh.load_state_dict(pretrained_dict)
except RuntimeError as e:
    print(e)

pretrained_dict = {key.replace("module.", ""): value for key, value in pretrained_dict.items()}
print(fresh.load_state_dict(pretrained_dict))
print(fresh.conv1.bias)
print(model_dp(torch.ones(1, 3, 2, 2)).shape)
