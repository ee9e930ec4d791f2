"""Pasur's row of the ``agents`` layer (:class:`agents.games.AgentGame`): its matches'
set-up and seeding, how its results read, its built-in agents and loaders, and its
terminal and web tables."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from agents.games import (
    EXPLOITERS,
    OPENSPIEL_BOTS,
    RLLIB_CHECKPOINTS,
    SB3_MODELS,
    AgentGame,
    Setup,
    resolve,
)
from pasur_env.core.policy import Policy

__all__ = ["AGENT_GAME", "PRETRAINED", "PRETRAINED_PPO", "NET_VERSIONS", "make_ppo",
           "load_net", "load_cfr"]

#: the shipped models' folder (``agents/pretrained``; its README says how each was made)
PRETRAINED = Path(__file__).resolve().parent.parent / "pretrained"
#: the shipped 2-player PPO agent
PRETRAINED_PPO = PRETRAINED / "ppo_2p.zip"
#: The shipped networks each version of ``net`` and ``net-ismcts`` plays: the file in
#: :data:`PRETRAINED` for each number of players. A new version replaces a table's file
#: only with a network that makes that agent better on every row of its comparison
#: (``docs/results.md``) and keeps the others; every version stays registered
#: (``net@1``), its files shipped, so a published figure can be played again. The
#: highest version is the bare name.
_NETS_1 = {2: "net_2p.npz", 3: "net_3p.npz", 4: "net_4p.npz"}
NET_VERSIONS: dict[str, dict[int, dict[int, str]]] = {
    # one-deal labels at 3 and 4 players: ahead of version 1 head to head
    "net": {1: _NETS_1, 2: {**_NETS_1, 3: "net_3p@2.npz", 4: "net_4p@2.npz"}},
    # the new 3- and 4-player networks did not make the search stronger (not adopted)
    "net-ismcts": {1: _NETS_1},
}


def _setup(players: int, preset: str | None, rule_flags: dict[str, Any]) -> Setup:
    """Pasur's rules (validated); ``num_players`` must agree with ``players``."""
    from pasur_env.pasur.rules import make_rules

    if "num_players" in rule_flags:
        if int(rule_flags["num_players"]) != players:
            raise ValueError("give the number of players as players=, not num_players=")
        rule_flags.pop("num_players")
    flags = dict(rule_flags)
    if preset is not None:
        flags["preset"] = preset
    rules = make_rules(num_players=players, **flags)
    rules_label = "custom" if rule_flags else "classic"
    rules_json = dataclasses.asdict(rules) | {"preset": preset or rules_label}
    return Setup("pasur", players, rules_json, dict(flags, num_players=players))


def _header(res: Any) -> list[str]:
    """Who played (A and B), how many players, and the rounds in which seatings."""
    R, seats = len(res.seatings), ", ".join(res.seatings)
    return [
        f"{res.a} (A) vs {res.b} (B), {res.players} players, seed {res.seed}",
        f"  {res.rounds:,} rounds = {res.deals:,} deals x {R} seatings ({seats})"
        if res.mode == "round" else
        f"  {res.rounds:,} rounds in {res.games:,} games ({res.deals:,} deals x {R} "
        f"seatings: {seats})",
    ]


def make_ppo(seed: int | None = None, **kwargs: Any) -> Policy:
    """The shipped MaskablePPO model (``ppo``; needs the train extra)."""
    from agents.learned.loaders import load_sb3

    if not PRETRAINED_PPO.exists():
        raise FileNotFoundError(f"the pretrained model is missing: {PRETRAINED_PPO}")
    agent = load_sb3(str(PRETRAINED_PPO), seed=seed, game_ids=("pasur",), **kwargs)
    agent.name = "ppo"  # type: ignore[attr-defined]
    return agent


def load_net(spec: str, seed: int | None = None, **kwargs: Any) -> Policy:
    """A saved network (``.npz``, written by ``train.move_net``) as the ``net`` agent."""
    from agents.pasur.move_net import NetAgent

    return NetAgent(seed=seed, path=spec, **kwargs)


def _shipped_net(name: str, cls: str, version: int) -> Any:
    """The factory of ``NAME@N`` (``net``, ``net-ismcts``; the class ``cls``, imported
    when first built): the agent on the shipped networks of its version N
    (:data:`NET_VERSIONS`), unless a ``path`` option names another file."""
    def make(seed: int | None = None, **options: Any) -> Policy:
        from agents.pasur.move_net.agent import shipped_net_files

        made = resolve(cls)  # a local, so an option error can name its options
        return made(seed=seed, files=shipped_net_files(version, name),  # type: ignore[no-any-return]
                    **options)

    make.__name__ = f"make_{cls.rpartition(':')[2]}_v{version}"
    return make


#: the classes of the agents that play the shipped networks
_NET_AGENTS = {"net": "agents.pasur.move_net:NetAgent",
               "net-ismcts": "agents.pasur.move_net.search:NetSearchAgent"}


def load_cfr(spec: str, seed: int | None = None, **kwargs: Any) -> Policy:
    """A policy solved by ``train.cfr`` on a small variant (``cfr:PATH``)."""
    from agents.pasur.cfr import CFRAgent

    return CFRAgent(spec[len("cfr:"):], seed=seed, **kwargs)


AGENT_GAME = AgentGame(
    id="pasur", setup=_setup, named=False, result_header=_header,
    games_text=lambda rules: f"games to {rules.get('target_score')}",
    agents=(
        ("greedy@1", "agents.pasur.greedy:GreedyAgent"),
        ("heuristic@1", "agents.pasur.heuristic:HeuristicAgent"),
        ("ismcts@1", "agents.pasur.ismcts:ISMCTSAgent"),
        ("ppo@1", make_ppo),
        # the shipped network of the seat count, alone and guiding search
        *((f"{name}@{v}", _shipped_net(name, cls, v))
          for name, cls in _NET_AGENTS.items() for v in NET_VERSIONS[name]),
    ),
    loaders=(SB3_MODELS, ("*.npz", load_net), RLLIB_CHECKPOINTS, ("cfr:*", load_cfr),
             OPENSPIEL_BOTS, EXPLOITERS),
    terminal_play="agents.apps.terminal:play_command",
    warm_tables="agents.apps.terminal:warm_moves",
    terminal_watch="agents.apps.terminal:watch_command",
    web_table="agents.apps.web.pasur_table:PasurTable",
    web_frames="agents.apps.web.records:pasur_frames",
)
