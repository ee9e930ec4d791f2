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
)
from pasur_env.core.policy import Policy

__all__ = ["AGENT_GAME", "PRETRAINED_PPO", "make_ppo", "load_net", "load_cfr"]

#: the shipped 2-player PPO agent (see README: how it was trained)
PRETRAINED_PPO = Path(__file__).resolve().parent.parent / "pretrained" / "ppo_2p.zip"


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
        ("net@1", "agents.pasur.move_net:NetAgent"),  # the shipped network of the seat count
        ("net-ismcts@1", "agents.pasur.move_net.search:NetSearchAgent"),  # search guided by it
    ),
    loaders=(SB3_MODELS, ("*.npz", load_net), RLLIB_CHECKPOINTS, ("cfr:*", load_cfr),
             OPENSPIEL_BOTS, EXPLOITERS),
    terminal_play="agents.apps.terminal:play_command",
    warm_tables="agents.apps.terminal:warm_moves",
    terminal_watch="agents.apps.terminal:watch_command",
    web_table="agents.apps.web.pasur_table:PasurTable",
    web_frames="agents.apps.web.records:pasur_frames",
)
