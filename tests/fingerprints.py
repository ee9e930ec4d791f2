"""Fingerprints of the shipped agents' decisions: every version of every built-in agent
of every game, asked for its move on a fixed set of positions, hashed.

A published figure against ``heuristic@1`` keeps its meaning only while ``heuristic@1``
plays as it did: ``tests/test_agent_versions.py`` compares each version's fingerprint
with the one stored in ``tests/data/agent_fingerprints.json``. When a change of an
agent's code, defaults or weights changes its decisions, keep the old version (its code
or weights) registered as ``name@N`` and register the new behaviour as ``name@N+1`` in
the game's row (``agents/pasur/game.py``, ``agents/rummy/game.py``), then record the
fingerprints::

    python tests/fingerprints.py            # which fingerprints differ (exit code 1)
    python tests/fingerprints.py --update   # write tests/data/agent_fingerprints.json

The positions are drawn by a seeded random walk (uniform legal moves for a random
number of steps, in games to the end, so they cover every phase: the first plays,
captures mid-selection, later rounds and deals); each agent is built with a fixed seed
and its defaults (search agents at their default budgets: a change of a default is a
change of behaviour) and decides for all positions of a table size in one batch.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from agents.evaluation.match import setup
from agents.registry import agent_origins, agent_versions, make_agent
from pasur_env.core.loop import decide
from pasur_env.core.policy import RandomPolicy, check_policy_fits
from pasur_env.games import GAME_IDS, game_info

DATA = Path(__file__).resolve().parent / "data" / "agent_fingerprints.json"
#: the positions of each game: (players, how many), the walk's longest (steps)
TABLES = {"pasur": (((2, 40), (3, 12), (4, 12)), 160), "persian_rummy": (((4, 40),), 160)}
POSITION_SEED = 20261205
AGENT_SEED = 7


def shipped_versions() -> list[tuple[str, str]]:
    """``(game, "name@N")`` of every version of every built-in agent of every game."""
    return [(game, f"{name}@{v}") for game in GAME_IDS
            for name, versions in agent_versions(game).items()
            if agent_origins(game)[name] == "built-in" for v in versions]


def positions(game: str, players: int, n: int, longest: int) -> tuple[object, np.ndarray]:
    """An engine of ``n`` games of ``game`` walked by the random policy for a seeded
    random number of steps each (0 .. ``longest``), and those of its games not over."""
    spec = setup(game, players, None, {})
    engine = game_info(game).engine_class()(n, seed=POSITION_SEED, episode="game",
                                            auto_reset=False, parallel=False,
                                            **spec.engine_flags)
    left = np.random.default_rng(POSITION_SEED + players).integers(0, longest + 1, size=n)
    walker = RandomPolicy(seed=POSITION_SEED)
    while True:
        games = np.flatnonzero((left > 0) & ~engine.done)
        if not games.size:
            return engine, np.flatnonzero(~engine.done)
        actions = decide(engine, games, [walker], np.zeros(games.size, dtype=np.int64))
        engine.step(actions, games=games)
        left[games] -= 1


def decisions(game: str, spec: str) -> dict[int, list[int]]:
    """The actions of ``spec`` (built with the fixed seed, afresh for each table size:
    ``net`` loads the network of the first table it sees) on the positions of each
    table size it plays."""
    tables, longest = TABLES[game]
    out = {}
    for players, n in tables:
        engine, games = positions(game, players, n, longest)
        agent = make_agent(spec, game=game, seed=AGENT_SEED)
        try:  # the table sizes it plays (the shipped PPO model: 2 players)
            check_policy_fits(agent, game, players, engine.obs_size)
        except ValueError:
            continue
        who = np.zeros(games.size, dtype=np.int64)
        out[players] = decide(engine, games, [agent], who).tolist()
    return out


def fingerprint(game: str, spec: str) -> str:
    """SHA-256 (first 16 hex digits) of the decisions of ``spec`` built with the fixed
    seed, with the table sizes it played."""
    found = decisions(game, spec)
    return hashlib.sha256(json.dumps(found, sort_keys=True).encode()).hexdigest()[:16]


def stored() -> dict[str, dict[str, str]]:
    """The recorded fingerprints, by game then ``name@N``."""
    return json.loads(DATA.read_text(encoding="utf-8")) if DATA.exists() else {}


def main(argv: list[str] | None = None) -> int:
    """Print the fingerprints that differ from the stored ones; ``--update`` writes them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="write " + str(DATA.name))
    args = parser.parse_args(argv)
    old, new = stored(), {}
    for game, spec in shipped_versions():
        new.setdefault(game, {})[spec] = fingerprint(game, spec)
        was = old.get(game, {}).get(spec)
        if was != new[game][spec]:
            print(f"{game} {spec}: {was} -> {new[game][spec]}")
    if args.update:
        DATA.write_text(json.dumps(new, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {DATA}")
        return 0
    return 0 if new == old else 1


if __name__ == "__main__":
    sys.exit(main())
