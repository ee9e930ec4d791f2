"""The AEC benchmark's pieces: its null env is a valid AEC env, and the loop runs."""

from __future__ import annotations

import sys
from pathlib import Path

from pettingzoo.test import api_test

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_env  # noqa: E402

from pasur_env import pasur_v0  # noqa: E402


def test_null_env_is_a_valid_aec_env() -> None:
    api_test(bench_env.null_env(), num_cycles=400)


def test_loop_counts_decisions_and_games() -> None:
    for make in (bench_env.null_env, lambda: pasur_v0.env(episode="round")):
        decisions_per_s, games_per_s = bench_env.run_loop(make, 0.2, seed=0)
        assert decisions_per_s > 0 and games_per_s > 0


def test_rummy_benchmark_pieces_run() -> None:
    import bench_rummy

    rates = bench_rummy.engine_rates(8, 0.05, 1)
    assert rates["step"] > 0 and rates["playout"] > 0
    pasur = bench_rummy.engine_rates(8, 0.05, 1, game="pasur")
    assert pasur["step"] > 0 and pasur["playout"] > 0
    from pasur_env import persian_rummy_v0

    assert bench_rummy.run_loop(persian_rummy_v0.env, 0.2, seed=0)[0] > 0


def test_toolkit_benchmark_runs() -> None:
    import bench_toolkit

    rates = bench_toolkit.toolkit_rates(4, 0.01, 1)
    assert all(r > 0 for game in rates.values() for r in game.values())


def test_all_seats_benchmark_runs() -> None:
    import bench_all_seats

    for game in ("pasur", "persian_rummy"):
        rates = bench_all_seats.rates(game, 8, 0.01, 1)
        assert set(rates) == {"engine step", "engine step + observe + mask", "AllSeatsEnv.step"}
        assert all(r > 0 for r in rates.values())


def test_labelling_benchmark_runs() -> None:
    """Each game is labelled with its own run's settings; the pieces run at tiny sizes."""
    import bench_labelling

    from train.move_net.games import NET_GAMES, net_game
    from train.move_net.pipeline import parse_args

    for game in NET_GAMES:
        assert bench_labelling.settings(game, 0).game == game
        assert bench_labelling.configs_of(game, None) == [net_game(game).config]
    # --config: the game's own configurations given, in their order, the others skipped
    assert bench_labelling.configs_of("pasur", ["long", "rummy", "default"]) == ["long", "default"]
    assert bench_labelling.configs_of("persian_rummy", ["long", "rummy"]) == ["rummy"]
    for config in ("tiny", "rummy-tiny"):
        args = parse_args(["--config", config, "--batch", "2", "--label-budget", "2"])
        rates = bench_labelling.labelling_rates(args, 1)
        assert rates["decisions"] > 0 and rates["first_iteration"] > 0
        assert rates["with_net"] > 0 and 0 < rates["bytes_per_decision"]
        assert bench_labelling.playout_rate(args, 8, 0.01, 1) > 0
