"""The ``net`` agent: the move-scoring network alone, one batched forward pass per call.

For each decision it lists the full moves open to the mover with their features
(:func:`agents.pasur.move_net.features.candidate_moves`), scores them with the network
(:class:`agents.pasur.move_net.model.MoveNet`) and plays the best; in the CAPTURE phase it scores
the pending card's options that extend the selection and emits the next TAKE. No
search, and no randomness unless asked: ``net:temperature=T`` draws each move from a
softmax of its values over ``T`` points (:func:`agents.core.move_net.move_probs`),
a mixed policy, and :meth:`NetAgent.action_probs` gives those probabilities exactly
(``pasur exploitability`` reads them). The shipped networks (in ``agents/pretrained``,
one per number of players) are picked by the game's player count; ``net@N`` plays those
of version N (:data:`agents.pasur.game.NET_VERSIONS`), ``files=`` a user's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from agents.core.base import Agent
from agents.core.move_net import action_probs, best_moves, check_temperature, choose_moves
from agents.pasur.endgame import endgame_values
from agents.pasur.game import NET_VERSIONS, PRETRAINED
from agents.pasur.move_net.features import candidate_moves
from agents.pasur.move_net.model import MoveNet
from agents.pasur.moves import emit_actions
from pasur_env.core.args import check_bool
from pasur_env.core.policy import GameView, check_actions

__all__ = ["NetAgent", "pretrained_net_path", "shipped_net_files", "best_moves"]

#: a solved last deal's exact values (round points) are multiplied by this to rank above
#: any temperature's reach
EXACT_SCALE = 1e6


def shipped_net_files(version: int | None = None, agent: str = "net") -> dict[int, Path]:
    """The shipped network file of each number of players that version ``version``
    (default: the latest) of ``agent`` (``net`` or ``net-ismcts``) plays
    (:data:`agents.pasur.game.NET_VERSIONS`); ``ValueError`` naming the versions for
    another."""
    versions = NET_VERSIONS.get(agent)
    if versions is None:
        raise ValueError(f"no shipped networks for {agent!r}; for {', '.join(NET_VERSIONS)}")
    v = max(versions) if version is None else version
    if isinstance(v, bool) or v not in versions:
        raise ValueError(f"{agent} has no version {version!r}; its versions: "
                         f"{', '.join(str(k) for k in sorted(versions))}")
    return {p: PRETRAINED / name for p, name in versions[v].items()}


def pretrained_net_path(num_players: int, version: int | None = None,
                        agent: str = "net") -> Path | None:
    """Where the shipped network of version ``version`` (default: the latest) of
    ``agent`` for ``num_players`` lives (the file may be missing from a trimmed
    install); None when that version has none for this table size."""
    return shipped_net_files(version, agent).get(int(num_players))


class NetAgent(Agent):
    """The move-scoring network as a batched agent (module docstring).

    Args:
        seed: seeds the draws at a temperature above 0 (at 0 the agent is deterministic).
        path: a network file (``.npz``); default: the one of ``files`` for the game's
            number of players, chosen at the first decision.
        model: a :class:`MoveNet` already in memory (instead of ``path``).
        files: the network file for each number of players, used when neither ``path``
            nor ``model`` is given; default: the latest shipped ones
            (:func:`shipped_net_files`; ``net@N`` plays version N's).
        temperature: 0 (default) plays the best-scored move; ``T > 0`` draws a move with
            probability proportional to ``exp(Q / T)``, ``Q`` in round points.
        solve_last_deal: in a 2-player round's last deal (the stock empty, so every card
            known) play the exact minimax move (:mod:`agents.pasur.endgame`) instead of
            the network's; off by default (the network alone).
    """

    name = "net"
    needs_observation = True
    game_ids = ("pasur",)

    def __init__(self, seed: int | None = None, path: str | Path | None = None,
                 model: MoveNet | None = None, temperature: float = 0.0,
                 files: Mapping[int, str | Path] | None = None,
                 solve_last_deal: bool = False) -> None:
        self.temperature = check_temperature(temperature, self.name)
        self.solve_last_deal = check_bool(solve_last_deal, "solve_last_deal",
                                          type_error=ValueError)
        self.reset(seed)
        self.path = None if path is None else Path(path)
        #: the network file of each table size (when no ``path`` or ``model`` is given)
        self.files = ({int(p): Path(f) for p, f in files.items()} if files is not None
                      else shipped_net_files(agent="net"))
        self._models: dict[int, MoveNet] = {}
        if model is not None:
            self._models[model.num_players] = model
        elif self.path is not None:
            m = MoveNet.shared(self.path)
            self._models[m.num_players] = m
        #: one given network (path or model), else the file of each player count
        self._fixed = bool(self._models)

    @property
    def player_counts(self) -> tuple[int, ...]:  # type: ignore[override]
        """The seat counts it has a network for: its own network's, or those of its
        files that exist (checked before it is seated)."""
        if self._fixed:
            return tuple(self._models)
        return tuple(p for p in sorted(self.files) if self.files[p].exists())

    @property
    def observation_size(self) -> int | None:  # type: ignore[override]
        """Its own network's observation width (None with one file per table size: each
        fits the observations of its player count)."""
        return next(iter(self._models.values())).obs_size if self._fixed else None

    def weights_file(self, num_players: int | None) -> Path | None:
        """The network file it plays at a table of ``num_players`` (a result's
        provenance): its own, else its file for that table; None for a network given in
        memory or a table it has no file for."""
        if self._fixed or num_players is None:
            return self.path
        return self.files.get(num_players)

    def model_for(self, num_players: int, obs_size: int) -> MoveNet:
        """The network for this game, loaded on first use; a clear error when none fits."""
        model = self._models.get(num_players)
        if model is None:
            if self.path is not None or self._models:
                have = sorted(self._models)
                raise ValueError(
                    f"{self.name}: the network was trained for {have[0]} players, the game "
                    f"has {num_players}"
                )
            path = self.files.get(num_players)
            if path is None or not path.exists():
                where = f" ({path.name})" if path is not None else ""
                raise ValueError(
                    f"{self.name}: no network for {num_players} players{where}; train one "
                    f"with `python -m train.move_net --players {num_players}`"
                )
            model = self._models[num_players] = MoveNet.shared(path)
        model.check(obs_size, num_players, self.name)
        return model

    def scores(self, obs: np.ndarray, view: GameView) -> tuple[np.ndarray, ...]:
        """``(offsets, cards, captured, q)``: every candidate move and its value."""
        eng = view.engine
        model = self.model_for(eng.num_players, obs.shape[1])
        offsets, cards, capts, feats = candidate_moves(eng, view.games)
        return offsets, cards, capts, model.q_values(obs, offsets, feats)

    def _play_values(self, obs: np.ndarray, view: GameView) -> tuple[np.ndarray, ...]:
        """:meth:`scores`, with ``solve_last_deal`` the exact values of a last deal's moves
        instead, scaled so far apart that a softmax at any temperature keeps only the
        minimax moves (equal ones share)."""
        offsets, cards, capts, q = self.scores(obs, view)
        if self.solve_last_deal:
            solved, exact = endgame_values(view.engine, np.asarray(view.games), offsets)
            q = np.where(np.repeat(solved, np.diff(offsets)), exact * EXACT_SCALE, q)
        return offsets, cards, capts, q

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        if obs is None:
            raise ValueError(f"{self.name} needs observations")
        offsets, cards, capts, q = self._play_values(obs, view)
        best = choose_moves(q, offsets, self.temperature, self.rng)
        out = np.empty(len(view.games), dtype=np.int64)
        emit_actions(view.engine.state, view.games, cards[best], capts[best], out)
        return check_actions(out, np.asarray(mask), self.name)

    def action_probs(self, obs: np.ndarray | None, mask: np.ndarray,
                     view: GameView) -> np.ndarray:
        """``(n, num_actions)``: the probability that :meth:`act` returns each action (a
        one-hot row at temperature 0). A move is several actions in the CAPTURE phase;
        the action due now is the first one of each candidate move (the candidates of a
        CAPTURE decision are the moves that extend its selection), so each action gets
        the summed probability of the moves that begin with it."""
        if obs is None:
            raise ValueError(f"{self.name} needs observations")
        offsets, cards, capts, q = self._play_values(obs, view)
        games = np.repeat(np.asarray(view.games), np.diff(offsets))
        first = np.empty(games.size, dtype=np.int64)
        emit_actions(view.engine.state, games, cards, capts, first)
        return action_probs(q, offsets, first, self.temperature, np.asarray(mask).shape)
