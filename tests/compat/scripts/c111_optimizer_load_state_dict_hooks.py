# https://docs.pytorch.org/docs/stable/generated/torch.optim.Optimizer.register_load_state_dict_pre_hook.html
# hooks around an optimizer's state_dict() and load_state_dict(): log, override the learning rate, check
# afterwards.
import torch


def make():
    w = torch.tensor([1.0, -1.0], requires_grad=True)
    return w, torch.optim.SGD([w], lr=0.1, momentum=0.9)


w, opt = make()
(w ** 2).sum().backward()
opt.step()

opt.register_state_dict_pre_hook(lambda optimizer: print("saving", type(optimizer).__name__))


def add_note(optimizer, state_dict):
    state_dict["note"] = "momentum run"
    return state_dict


opt.register_state_dict_post_hook(add_note)
saved = opt.state_dict()
print(sorted(saved), saved["note"])

w2, opt2 = make()


def drop_note_and_lower_lr(optimizer, state_dict):
    print("pre-load keys:", sorted(state_dict))
    state_dict = dict(state_dict)
    state_dict.pop("note")
    state_dict["param_groups"] = [dict(g, lr=0.01) for g in state_dict["param_groups"]]
    return state_dict


opt2.register_load_state_dict_pre_hook(drop_note_and_lower_lr)
opt2.register_load_state_dict_post_hook(
    lambda optimizer: print("post-load lr:", optimizer.param_groups[0]["lr"]))
opt2.load_state_dict(saved)
print(opt2.state[w2]["momentum_buffer"])
print(saved["param_groups"][0]["lr"], opt2.param_groups[0]["lr"])
