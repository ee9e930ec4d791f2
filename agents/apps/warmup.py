"""``pasur warmup``: compile every kernel ahead of time, so no later run waits for it.

numba compiles a kernel the first time it is called and keeps the result in the cache
folder (:mod:`pasur_env.core.cache`); in a fresh install the first ``pasur eval`` spends
most of its time compiling. The warm-up pays that cost once, visibly: for each game it
plays the PettingZoo and Gymnasium envs (the engine's step, mask and observation
kernels), the vector env when the train extra is installed, and a few duplicate rounds
of every registered agent against ``random`` (the search kernels: greedy, heuristic,
ismcts, the network's features and search), a few recorded games replayed as ``pasur
replay`` does, and the exact best response of ``pasur exploitability`` on a tiny variant
(for the games it solves); then it compiles the multi-threaded twin of every batch
kernel (:func:`pasur_env.core.compile.warm_parallel_twins`), used from batches of
hundreds of games. Compiling is all it does: the games played are thrown away. A test
runs every command after a warm-up on a fresh cache and sees nothing compiled.
"""

from __future__ import annotations

import io
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents.evaluation.match import evaluate
from agents.games import agent_game
from agents.registry import agent_names
from pasur_env.core.cache import cache_info
from pasur_env.core.compile import compile_progress, warm_parallel_twins
from pasur_env.core.extras import as_missing_extra
from pasur_env.games import GAME_IDS, game_info

__all__ = ["warmup"]

#: rounds each agent plays against ``random`` (one duplicate group is enough to compile)
WARMUP_ROUNDS = 4


def _play_aec(game: str) -> None:
    """One episode of the PettingZoo env, random legal actions (observation kernels)."""
    env = game_info(game).aec_env_module().env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    env.close()


def _play_gym(game: str) -> None:
    """A few steps of the Gymnasium single-agent env."""
    import gymnasium

    env = gymnasium.make(game_info(game).gym_id)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(8):
        mask = env.unwrapped.action_masks()
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            env.reset()
    env.close()


def _play_vec(game: str) -> None:
    """A few steps of the SB3 vector env (needs the train extra)."""
    venv = game_info(game).vector_env_class()(num_envs=2, seed=0)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(4):
        masks = venv.action_masks()
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    venv.close()


def _replay(game: str) -> None:
    """A few recorded games, each replayed as ``pasur replay --all`` shows it."""
    from agents.apps.terminal import replay_in_terminal

    with tempfile.TemporaryDirectory() as folder:
        evaluate("random", "random", rounds=WARMUP_ROUNDS, batch=64, progress=False,
                 game=game, save_games=folder)
        for path in Path(folder).glob("*.jsonl"):
            replay_in_terminal(str(path), show_all=True, output_stream=io.StringIO())


def _steps(game: str, agents: Sequence[str] | None) -> list[tuple[str, Callable[[], Any]]]:
    """The warm-up of one game, step by step: (label, thunk)."""
    from agents.evaluation import exploitability

    steps: list[tuple[str, Callable[[], Any]]] = [
        ("PettingZoo env", lambda: _play_aec(game)),
        ("Gymnasium env", lambda: _play_gym(game)),
        ("vector env", lambda: _play_vec(game)),
        ("records and replay", lambda: _replay(game)),
    ]
    if agent_game(game).warm_tables:  # what ``pasur play`` and the web table call
        steps.append(("tables", agent_game(game).load("warm_tables")))
    if game in exploitability.GAMES:  # ``pasur exploitability``'s own kernels
        steps.append(("exploitability", exploitability.warm_up))
    names = list(agents) if agents else [a for a in agent_names(game) if a != "random"]
    for name in names:
        steps.append((f"agent {name}", lambda name=name: evaluate(
            name, "random", rounds=WARMUP_ROUNDS, batch=64, progress=False, game=game)))
    return steps


def warmup(
    games: Sequence[str] = GAME_IDS,
    agents: Sequence[str] | None = None,
    parallel: bool = True,
    out: TextIO | None = None,
    progress: bool = True,
) -> float:
    """Compile the kernels of ``games`` (their envs and ``agents``: default every
    registered one), then (``parallel``) their multi-threaded twins; progress lines
    go to ``out`` (stderr; without ``progress`` only the last line). A step that needs a
    missing extra is skipped, saying so. Returns the seconds taken."""
    final = out if out is not None else sys.stderr
    out = final if progress else io.StringIO()
    t0 = time.perf_counter()
    print(f"pasur warmup: kernel cache {cache_info().path or '(none: not kept)'}", file=out)
    with compile_progress(out, prefix="pasur warmup", verbose=False, hint=""):
        for game in games:
            for label, step in _steps(game, agents):
                t = time.perf_counter()
                try:
                    step()
                except ImportError as e:
                    missing = as_missing_extra(e, label)
                    if missing is None:
                        raise
                    print(f"pasur warmup: {game}: {label}: skipped ({missing})", file=out)
                    continue
                print(f"pasur warmup: {game}: {label} ({time.perf_counter() - t:.1f} s)",
                      file=out, flush=True)
        if parallel:
            t = time.perf_counter()
            n = warm_parallel_twins()
            print(f"pasur warmup: multi-threaded builds of {n} batch kernels "
                  f"({time.perf_counter() - t:.1f} s)", file=out, flush=True)
    seconds = time.perf_counter() - t0
    print(f"pasur warmup: done in {seconds:.1f} s", file=final, flush=True)
    return seconds
