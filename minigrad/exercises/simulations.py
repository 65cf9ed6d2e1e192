"""The distributed-training simulations of lessons 07 and 09, on one process.

Both are built from ordinary hooks, as the real things are; what they simulate is the
communication between ranks.

* :class:`Reducer` (lesson 07): DDP's gradient bucketing for several workers, each with
  its own copy of the parameters. A post-accumulate-grad hook marks a parameter ready;
  a bucket is all-reduced (averaged over the workers) once it is ready on every worker;
  the last bucket of a worker queues a final callback that waits for every bucket, as
  ``torch.nn.parallel.DistributedDataParallel``'s reducer does. The workers' backward
  passes run interleaved in one thread: ``backward_steps`` makes each a generator, and
  :meth:`Reducer.run` advances them at the speeds it is given.
* :class:`SimulatedFSDP` (lesson 09): FSDP's parameter sharding for one model. Forward
  pre-hooks all-gather a unit's weights from the shards, forward hooks free them, full
  backward pre-hooks gather them again, and post-accumulate-grad hooks reduce-scatter
  each gradient into the shards and free it. "Free" writes NaN into the weights, so a
  use of a freed weight shows up as NaN.

The lessons show the source on demand (``Reducer??`` in Jupyter) so that they read as
lessons. No PyTorch counterpart: PyTorch's are C++ and NCCL (DDP's ``Reducer``) and
``torch.distributed.fsdp``.
"""
import numpy as np

import minigrad as torch
from minigrad.autograd import Variable as _Variable
from minigrad.autograd.engine import backward_steps as _backward_steps

__all__ = ["Reducer", "SimulatedFSDP"]


class Reducer:
    """DDP's bucketed all-reduce for ``workers`` (one list of parameters per worker, in
    forward order), ``bucket_size`` parameters per bucket, filled last layer first.
    :meth:`run` drives one backward pass per worker; ``log`` then holds
    ``(tick, worker or None, what, bucket)`` for every "bucket ready", "all-reduce",
    "waiting" and "final callback"."""

    def __init__(self, workers, bucket_size):
        self.workers = workers
        order = list(reversed(range(len(workers[0]))))      # gradients arrive last layer first
        self.buckets = [order[i:i + bucket_size] for i in range(0, len(order), bucket_size)]
        self.bucket_of = {i: b for b, members in enumerate(self.buckets) for i in members}
        self.handles = [p.register_post_accumulate_grad_hook(self.hook(rank, i))
                        for rank, params in enumerate(workers) for i, p in enumerate(params)]

    # --- during backward --------------------------------------------------------------
    def hook(self, rank, i):
        """The post-accumulate-grad hook of parameter ``i`` on worker ``rank``."""
        def mark_ready(param):
            b = self.bucket_of[i]
            self.ready[rank][b].add(i)
            if len(self.ready[rank][b]) == len(self.buckets[b]):   # bucket full on this worker
                self.record(rank, "bucket ready", b)
                self.joined[b].add(rank)
                if len(self.joined[b]) == len(self.workers):       # ... and on every worker
                    self.all_reduce(b)
                if all(len(r) == len(m) for r, m in zip(self.ready[rank], self.buckets)):
                    # the last bucket: as DDP's reducer
                    _Variable._execution_engine.queue_callback(lambda: self.finalize(rank))
        return mark_ready

    def all_reduce(self, b):
        """Average bucket ``b``'s gradients over the workers, in place."""
        with torch.no_grad():
            for i in self.buckets[b]:
                grads = [params[i].grad for params in self.workers]
                mean = sum(g.numpy() for g in grads) / len(grads)
                for g in grads:
                    g.copy_(torch.from_numpy(mean))
        self.reduced[b] = True
        self.record(None, "all-reduce", b)

    def finalize(self, rank):
        """Worker ``rank``'s final callback: wait (let the others run) until every bucket
        is reduced."""
        while not all(self.reduced):
            self.record(rank, "waiting", None)
            self.advance_others(rank)
        missing = [b for b, done in enumerate(self.reduced) if not done]
        assert not missing, f"buckets never reduced: {missing}"
        self.record(rank, "final callback", None)

    # --- the driver: the workers' backward passes, interleaved ---------------------------
    def run(self, losses, speeds):
        """Run ``losses[rank].backward()`` for every worker, ``speeds[rank]`` engine
        events of each worker per round."""
        W, B = len(self.workers), len(self.buckets)
        self.ready = [[set() for _ in range(B)] for _ in range(W)]
        self.joined = [set() for _ in range(B)]
        self.reduced = [False] * B
        self.log, self.tick = [], 0
        self.passes = [_backward_steps(loss) for loss in losses]
        while any(p is not None for p in self.passes):
            for rank, speed in enumerate(speeds):
                for _ in range(speed):
                    self.advance(rank)

    def advance(self, rank):
        """One engine event of worker ``rank``'s pass (nothing if it is done or running)."""
        if self.passes[rank] is None or self.passes[rank].gi_running:
            return
        self.tick += 1
        try:
            next(self.passes[rank])
        except StopIteration:
            self.passes[rank] = None

    def advance_others(self, rank):
        for other in range(len(self.workers)):
            if other != rank:
                self.advance(other)

    def record(self, rank, what, bucket):
        self.log.append((self.tick, rank, what, bucket))


class SimulatedFSDP:
    """FSDP's hooks on ``model`` (a ``Sequential``; each child with parameters is a unit)
    for ``world`` ranks. ``timeline`` holds ``(event, bytes of full weights
    materialised)``; ``full_grad(name)`` reassembles a parameter's averaged gradient from
    the shards. ``backward_gather=False`` leaves out the gather before a unit's backward
    (the bug lesson 09 shows)."""

    def __init__(self, model, world=4, backward_gather=True):
        self.model, self.world = model, world
        self.params = dict(model.named_parameters())
        self.shards, self.grad_shards = {}, {}
        for name, p in self.params.items():
            flat = p.data.numpy().ravel()
            per_rank = -(-flat.size // world)                 # ceil: pad to equal shards
            padded = np.zeros(per_rank * world, dtype=flat.dtype)
            padded[:flat.size] = flat
            self.shards[name] = padded.reshape(world, per_rank)  # row r: rank r's shard
            self.grad_shards[name] = np.zeros_like(self.shards[name])
            p.data.numpy()[...] = np.nan                       # nothing materialised yet
        self.materialised, self.timeline, self.handles = set(), [], []
        for unit, layer in model.named_children():
            if not list(layer.parameters()):
                continue                                       # ReLU, Flatten: no unit
            self.handles += [
                layer.register_forward_pre_hook(lambda m, args, u=unit: self.gather(u, "pre-forward")),
                layer.register_forward_hook(lambda m, args, out, u=unit: self.free(u, "post-forward")),
            ]
            if backward_gather:
                self.handles.append(layer.register_full_backward_pre_hook(
                    lambda m, grad_output, u=unit: self.gather(u, "pre-backward")))
            for pname, p in layer.named_parameters():
                self.handles.append(p.register_post_accumulate_grad_hook(
                    lambda p, name=f"{unit}.{pname}": self.reduce_scatter(name)))

    def _log(self, event):
        self.timeline.append((event, sum(self.params[n].data.numpy().nbytes for n in self.materialised)))

    def gather(self, unit, when):
        """All-gather: rebuild ``unit``'s full weights from the shards."""
        for pname, p in self.model[int(unit)].named_parameters():
            name = f"{unit}.{pname}"
            full = p.data.numpy()
            full[...] = self.shards[name].ravel()[:full.size].reshape(full.shape)
            self.materialised.add(name)
        self._log(f"{when} {unit}: gather")

    def free(self, unit, when):
        for pname, p in self.model[int(unit)].named_parameters():
            p.data.numpy()[...] = np.nan
            self.materialised.discard(f"{unit}.{pname}")
        self._log(f"{when} {unit}: free")

    def reduce_scatter(self, name):
        """Every rank adds its gradient's shards / world: after all ranks ran, row r holds
        rank r's shard of the averaged gradient. Then the full gradient and the weight are
        freed."""
        p = self.params[name]
        flat = np.zeros(self.shards[name].size, dtype=p.data.numpy().dtype)
        flat[:p.data.numpy().size] = p.grad.data.numpy().ravel()
        self.grad_shards[name] += flat.reshape(self.world, -1) / self.world
        p.grad = None
        p.data.numpy()[...] = np.nan
        self.materialised.discard(name)
        self._log(f"post-accumulate {name}: reduce-scatter, free")

    def full_grad(self, name):
        """The averaged gradient of parameter ``name``, reassembled (for checking)."""
        p = self.params[name]
        return self.grad_shards[name].ravel()[:p.data.numpy().size].reshape(p.data.numpy().shape)
