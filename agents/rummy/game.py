"""Persian Rummy's row of the ``agents`` layer (:class:`agents.games.AgentGame`): its
matches' set-up and seeding, how its results read (team points, the keys its first
results were written with), its built-in agents and loaders, and its terminal and web
tables."""

from __future__ import annotations

from typing import Any

from agents.games import EXPLOITERS, OPENSPIEL_BOTS, SB3_MODELS, AgentGame, Setup
from pasur_env.core.policy import Policy

__all__ = ["AGENT_GAME", "load_net"]


def _setup(players: int, preset: str | None, rule_flags: dict[str, Any]) -> Setup:
    """Persian Rummy's rules (validated): four players in teams, no presets."""
    from pasur_env.rummy.rules import make_rummy_rules

    if players != 4:
        raise ValueError(f"Persian Rummy is played by 4 players in teams, got players={players}")
    if preset is not None:
        raise ValueError(f"Persian Rummy has no rule presets, got preset={preset!r}")
    rules = make_rummy_rules(**rule_flags)
    return Setup("persian_rummy", 4, rules.to_dict(), dict(rule_flags))


def _match_seeds(seed: int) -> tuple[int, int]:
    """``seed`` and ``seed + 1``: the seeding its results were first published with."""
    return seed, seed + 1


def _json_extra(res: Any) -> dict[str, Any]:
    """The keys its results were first written with (older readers look for them)."""
    return {"groups": res.deals, "win_rate": res.round_win_rate,
            "win_ci95": list(res.round_win_rate_ci95), "points_a": res.mean_points_a,
            "points_b": res.mean_points_b}


def load_net(spec: str, seed: int | None = None, **kwargs: Any) -> Policy:
    """A saved Persian Rummy network (``.npz``, ``train.move_net --config rummy``) as ``net``."""
    from agents.rummy.move_net import RummyNetAgent

    return RummyNetAgent(seed=seed, path=spec, **kwargs)


AGENT_GAME = AgentGame(
    id="persian_rummy", setup=_setup, match_seeds=_match_seeds, reseed_instances=False,
    points_unit="team points/round", json_extra=_json_extra,
    games_text=lambda rules: f"games of {rules.get('deals')} deals",
    agents=(
        ("greedy@1", "agents.rummy.greedy:RummyGreedyAgent"),
        ("rollout@1", "agents.rummy.rollout:RummyRolloutAgent"),
        ("ismcts@1", "agents.rummy.ismcts:RummyISMCTSAgent"),
        ("net@1", "agents.rummy.move_net:RummyNetAgent"),  # the shipped network
    ),
    loaders=(SB3_MODELS, ("*.npz", load_net), OPENSPIEL_BOTS, EXPLOITERS),
    terminal_play="agents.apps.rummy_terminal:play_command",
    terminal_watch="agents.apps.rummy_terminal:watch_command",
    web_table="agents.apps.web.rummy_table:RummyTable",
    web_frames="agents.apps.web.rummy_table:rummy_frames",
)
