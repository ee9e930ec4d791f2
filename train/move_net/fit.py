"""Fitting the move-scoring network to search labels (torch), and exporting it to numpy.

:class:`TorchMoveNet` has exactly the parameters of :class:`agents.core.move_net.MoveNetBase`
(the numpy network the agents of both games run), so a fitted model is exported array
for array (:meth:`TorchMoveNet.to_numpy`, to the game's class) and a shipped one can be
fitted further (:meth:`TorchMoveNet.from_numpy`). The fit is the same for both games;
the symmetries that ``augment`` draws are the game's (:mod:`train.move_net.games`).

The loss, per decision of the batch (values ``v_m`` from search for its moves ``m``):

* the *advantages*: ``mean_m ((Q_m - mean Q) - (v_m - mean v))**2``: which move is
  better, free of the noise the determinizations share across a decision's moves;
* the level, with weight ``level_weight``: ``(mean Q - mean v)**2``;
* the choice, with weight ``policy_weight``: the cross-entropy between the softmax of
  the search values and the softmax of ``Q`` over the decision's moves (both at
  temperature ``temperature`` points). The squared error weighs every move alike, a
  hopeless move as much as the best two; this term puts the weight where the decision
  is made, on the moves near the top.

With ``value_scale`` the values are fitted in units of that many points (the network's
``Q`` then is too; only its order matters to the agents): Persian Rummy's round-point
differences are ten times Pasur's, too large for the step sizes that fit Pasur.

With ``augment`` every decision of a minibatch is seen under a random symmetry of the
rules (Pasur, :mod:`pasur_env.pasur.symmetry`: the non-club suits exchanged rank by rank,
10♦ kept; Persian Rummy, :mod:`pasur_env.rummy.symmetry`: the four suits exchanged alike
in every rank, the jokers among themselves): its observation's and its move rows' card
planes are relabelled, its values stay. The network then learns that "7♥" and "7♠" play
alike instead of learning each card apart; on the same labels it plays clearly stronger
(measured: README, *Training*; for Persian Rummy, ``docs/results.md``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.core.move_net import PARAM_NAMES, MoveNetBase
from agents.pasur.move_net.features import MOVE_WIDTH
from agents.pasur.move_net.model import MoveNet
from train.move_net.data import Dataset
from train.move_net.games import net_game

__all__ = ["TorchMoveNet", "FitSettings", "fit", "denormals_flushed", "rows_of"]


class TorchMoveNet(nn.Module):
    """The network of :class:`agents.core.move_net.MoveNetBase` in torch (``move_width``: the
    game's move rows; Pasur's by default)."""

    def __init__(self, obs_size: int, hidden: int, hidden2: int,
                 move_width: int = MOVE_WIDTH) -> None:
        super().__init__()
        self.obs = nn.Linear(obs_size, hidden, bias=False)
        self.move = nn.Linear(move_width, hidden)
        self.l2 = nn.Linear(hidden, hidden2)
        self.q = nn.Linear(hidden2, 1)

    def forward(self, obs: torch.Tensor, dec: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        """``Q`` of every move; ``dec[r]`` is the decision of move row ``r``."""
        h = torch.relu(self.obs(obs)[dec] + self.move(feats))
        return self.q(torch.relu(self.l2(h))).squeeze(1)

    def to_numpy(self, net_class: type[MoveNetBase] = MoveNet, **meta: object) -> Any:
        """The same network as a numpy ``net_class`` (Pasur's :class:`MoveNet` by
        default; for the agents)."""
        t = lambda x: x.detach().cpu().numpy().astype(np.float32)  # noqa: E731
        arrays = [t(self.obs.weight.T), t(self.move.weight.T), t(self.move.bias),
                  t(self.l2.weight.T), t(self.l2.bias), t(self.q.weight[0]), t(self.q.bias)]
        if self.move.weight.shape[1] != net_class.MOVE_WIDTH:
            raise ValueError(f"move rows of {self.move.weight.shape[1]} features are not "
                             f"{net_class.GAME}'s ({net_class.MOVE_WIDTH})")
        return net_class(dict(zip(PARAM_NAMES, arrays, strict=True)),
                         {**meta, "game": net_class.GAME})

    @classmethod
    def from_numpy(cls, net: MoveNetBase) -> TorchMoveNet:
        p = net.params
        model = cls(net.obs_size, p["b1"].shape[0], p["b2"].shape[0], p["w_move"].shape[0])
        f = lambda x: torch.as_tensor(np.asarray(x, dtype=np.float32))  # noqa: E731
        with torch.no_grad():
            model.obs.weight.copy_(f(p["w_obs"]).T)
            model.move.weight.copy_(f(p["w_move"]).T)
            model.move.bias.copy_(f(p["b1"]))
            model.l2.weight.copy_(f(p["w2"]).T)
            model.l2.bias.copy_(f(p["b2"]))
            model.q.weight.copy_(f(p["w_q"])[None])
            model.q.bias.copy_(f(p["b_q"]))
        return model


@dataclass
class FitSettings:
    """How :func:`fit` trains (see :class:`train.move_net.config.Args` for the meaning of each)."""

    epochs: int = 4
    batch_size: int = 512
    lr: float = 1e-3
    lr_final: float = 1e-4
    weight_decay: float = 1e-5
    level_weight: float = 0.5
    seed: int = 0
    augment: bool = False
    num_players: int = 2
    game: str = "pasur"
    policy_weight: float = 0.0
    temperature: float = 1.0
    value_scale: float = 1.0
    last_epochs: int = 0
    """epochs in all once the second has ended (the first, if ``epochs`` or this is 1;
    0: ``epochs``); the learning rate then decays from its value at that point to
    ``lr_final`` over the new end"""


def rows_of(offsets: np.ndarray, decisions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The move rows of ``decisions`` and, for each row, its decision's position in
    ``decisions``."""
    starts, counts = offsets[decisions], offsets[decisions + 1] - offsets[decisions]
    dec = np.repeat(np.arange(decisions.size), counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    rows = np.repeat(starts, counts) + (np.arange(dec.size) - first)
    return rows, dec


class Relabeller:
    """Random symmetries of the rules applied to a minibatch (module docstring): a table
    of ``n`` relabellings as column indices of observations and move rows, one drawn per
    decision."""

    def __init__(self, game: str, num_players: int, obs_size: int,
                 rng: np.random.Generator, n: int = 1024) -> None:
        obs_ix, feat_ix = net_game(game).relabellings(num_players, rng, n)
        if obs_ix.shape[1] != obs_size:
            raise ValueError(f"augment: observations of {obs_size} features do not match the "
                             f"{num_players}-player layout ({obs_ix.shape[1]})")
        self.obs_ix, self.feat_ix = torch.as_tensor(obs_ix), torch.as_tensor(feat_ix)
        self.rng = rng

    def __call__(self, obs: torch.Tensor, dec: torch.Tensor,
                 feats: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pick = torch.as_tensor(self.rng.integers(0, self.obs_ix.shape[0], obs.shape[0]))
        return obs.gather(1, self.obs_ix[pick]), feats.gather(1, self.feat_ix[pick][dec])


def _log_softmax(x: torch.Tensor, dec: torch.Tensor, n: int) -> torch.Tensor:
    """Log-softmax of ``x`` within each decision (``dec[r]``: the decision of row r)."""
    top = torch.full((n,), -1e9).scatter_reduce(0, dec, x, "amax")[dec]
    total = torch.zeros(n).index_add_(0, dec, torch.exp(x - top))
    return x - top - torch.log(total[dec])


def _batch_loss(model: TorchMoveNet, data: Dataset, idx: np.ndarray, s: FitSettings,
                relabel: Relabeller | None = None) -> tuple[torch.Tensor, dict[str, float]]:
    rows, dec = rows_of(data.offsets, idx)
    obs = torch.as_tensor(data.obs[idx].astype(np.float32))
    feats = torch.as_tensor(data.feats[rows].astype(np.float32))
    scale = s.value_scale
    v = torch.as_tensor(data.values[rows])
    if scale != 1.0:
        v = v / scale
    dec_t = torch.as_tensor(dec)
    if relabel is not None:
        obs, feats = relabel(obs, dec_t, feats)
    q = model(obs, dec_t, feats)
    n = idx.size
    counts = torch.bincount(dec_t, minlength=n).float()
    q_mean = torch.zeros(n).index_add_(0, dec_t, q) / counts
    v_mean = torch.zeros(n).index_add_(0, dec_t, v) / counts
    v_max = torch.full((n,), -1e9).scatter_reduce(0, dec_t, v, "amax")
    adv = ((q - q_mean[dec_t]) - (v - v_mean[dec_t])) ** 2
    loss_adv = (torch.zeros(n).index_add_(0, dec_t, adv) / counts).mean()
    loss_level = ((q_mean - v_mean) ** 2).mean()
    loss = loss_adv + s.level_weight * loss_level
    parts: dict[str, float] = {}
    if s.policy_weight:
        t = s.temperature / scale  # in points; v and q are in units of ``scale`` points
        target = torch.exp(_log_softmax(v / t, dec_t, n))
        loss_policy = -(torch.zeros(n).index_add_(
            0, dec_t, target * _log_softmax(q / t, dec_t, n))).mean()
        loss = loss + s.policy_weight * loss_policy
        parts["loss_policy"] = loss_policy.item()
    with torch.no_grad():
        top = torch.full((n,), -1e9).scatter_reduce(0, dec_t, q, "amax")
        pick = torch.zeros(n).index_add_(0, dec_t, (q >= top[dec_t]).float() * v)
        hits = torch.zeros(n).index_add_(0, dec_t, (q >= top[dec_t]).float())
        regret = (v_max - pick / hits).mean() * scale
    return loss, {"loss_adv": loss_adv.item(), "loss_level": loss_level.item(), **parts,
                  "regret": regret.item()}


_FLUSHING = [0]  # depth of the nested denormals_flushed() blocks


@contextmanager
def denormals_flushed() -> Iterator[None]:
    """Compute numbers too small for a normal float (denormals) as zero inside the block,
    in this thread and the threads it starts meanwhile (:func:`torch.set_flush_denormal`;
    the flag is a thread's, copied to the threads it creates, so the pipeline enters the
    block before torch starts its thread pool). Adam's weight decay drives the weights of
    inputs that are never set, and their moment estimates, into that range, where the
    CPU computes many times slower: without it a fit's step took twice as long after
    6,000 steps, and an 18-minute run's fit 2.3 times what its first epoch predicted
    (``docs/training.md``). The outermost block turns the flag off again on exit (the
    threads' default: Python's floats obey IEEE 754, which hypothesis, say, checks)."""
    _FLUSHING[0] += 1
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        _FLUSHING[0] -= 1
        if not _FLUSHING[0]:
            torch.set_flush_denormal(False)


def fit(model: TorchMoveNet, data: Dataset, s: FitSettings,
        log: Callable[[int, dict[str, float]], None] | None = None,
        progress: Callable[[int], None] | None = None,
        replan: Callable[[int, float], int] | None = None) -> dict[str, float]:
    """Fit ``model`` to ``data`` with Adam (learning rate decayed linearly to
    ``lr_final``); returns the last epoch's mean losses and regret (the search value
    lost by the network's choice, in points per decision).

    The epochs in all may change once the second has ended (the first, if there is one
    only): to ``s.last_epochs``, or to what ``replan(epochs_done, seconds_of_the_last)``
    returns then, at least the epochs done (a budgeted run's last fit ends on the clock
    so: :meth:`train.move_net.budget.Closing.fit_epochs`; the epoch is timed inside the
    loop, without the fit's start-up, which the first epoch's time once included). The
    rest of the decay is then stretched or shrunk to the new end, so that a fit given
    the same ``last_epochs`` repeats it exactly. The number is in ``stats["epochs"]``.
    Denormals are flushed (:func:`denormals_flushed`; the pipeline does it before torch
    starts its threads)."""
    with denormals_flushed():
        return _fit(model, data, s, log, progress, replan)


def _fit(model: TorchMoveNet, data: Dataset, s: FitSettings,
         log: Callable[[int, dict[str, float]], None] | None,
         progress: Callable[[int], None] | None,
         replan: Callable[[int, float], int] | None) -> dict[str, float]:
    """:func:`fit`'s loop."""
    opt = torch.optim.Adam(model.parameters(), lr=s.lr, weight_decay=s.weight_decay)
    rng = np.random.default_rng(s.seed)
    relabel = (Relabeller(s.game, s.num_players, data.obs.shape[1],
                           np.random.default_rng([s.seed, 7]))
               if s.augment else None)
    n = len(data)
    per_epoch = -(-n // s.batch_size)
    epochs, step = s.epochs, 0
    decay = (0, s.lr, epochs * per_epoch)  # from step, at learning rate, to step

    def lr_at(k: int) -> float:
        a, lr_a, b = decay
        return lr_a + (s.lr_final - lr_a) * (k - a) / max(1, b - 1 - a)

    stats: dict[str, float] = {}
    change = min(2, epochs, s.last_epochs or 2) * per_epoch  # where the end may change
    model.train()
    while step < epochs * per_epoch:
        began = time.perf_counter()
        order = rng.permutation(n)
        totals: dict[str, float] = {}
        for start in range(0, n, s.batch_size):
            for g in opt.param_groups:
                g["lr"] = lr_at(step)
            loss, parts = _batch_loss(model, data, np.sort(order[start:start + s.batch_size]),
                                      s, relabel)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            for k, x in parts.items():
                totals[k] = totals.get(k, 0.0) + x
            if log is not None:
                log(step, parts)
            if progress is not None:
                progress(1)
        stats = {k: x / per_epoch for k, x in totals.items()}
        if step == change:  # the one change of the end
            done = step // per_epoch
            asked = s.last_epochs or (replan(done, time.perf_counter() - began)
                                      if replan is not None else epochs)
            new = max(done, asked)
            if new != epochs:
                decay, epochs = (step, lr_at(step), new * per_epoch), new
    model.eval()
    return {**stats, "epochs": float(epochs)}
