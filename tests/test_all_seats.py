"""The all-seats batched env (:class:`pasur_env.core.all_seats.AllSeatsEnv`): its API, its
errors, and that it plays and pays exactly as the PettingZoo AEC env of each game.

The agreement test drives B games of the all-seats env and B AEC envs (``env()``, in
PettingZoo's wrappers) dealt the same games with the same actions, and compares at
every step the seat to move, its observation and legal mask, every seat's reward,
the terminations and truncations, and at every episode end each seat's terminal
observation and its return summed over the episode.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pasur_env import AllSeatsEnv
from pasur_env.core.options import REWARD_MODES
from pasur_env.games import game_info

GAMES = ("pasur", "persian_rummy")


def _aec_envs(game: str, n: int, seed: int, **options) -> list:
    """``n`` AEC envs of ``game``, env ``i`` dealt as game ``i`` of an engine seeded ``seed``."""
    envs = []
    for i in range(n):
        env = game_info(game).aec_env_module().env(**options)
        env.unwrapped.engine.seed_streams(seed, i)
        env.reset()
        envs.append(env)
    return envs


def _agree(game: str, num_envs: int, seed: int, action_seed: int, steps: int,
           **options) -> int:
    """Play ``steps`` random legal steps in both envs, comparing everything; returns the
    number of episodes that ended."""
    env = AllSeatsEnv(game, num_envs=num_envs, **options)
    aecs = _aec_envs(game, num_envs, seed, **options)
    obs, mask, seat, _ = env.reset(seed=seed)
    P = env.num_players
    agents = [f"player_{s}" for s in range(P)]
    returns = np.zeros((num_envs, P))
    aec_returns = np.zeros((num_envs, P))
    rng = np.random.default_rng(action_seed)
    ended = 0
    for _ in range(steps):
        for i, aec in enumerate(aecs):
            agent = aec.agent_selection
            assert agent == f"player_{seat[i]}"
            view = aec.observe(agent)
            np.testing.assert_array_equal(mask[i], view["action_mask"].astype(bool))
            np.testing.assert_array_equal(obs[i], view["observation"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], dtype=np.int64)
        obs, mask, seat, rewards, terminated, truncated, info = env.step(actions)
        returns += rewards
        for i, aec in enumerate(aecs):
            aec.step(int(actions[i]))
            paid = np.array([aec.rewards[a] for a in agents], dtype=np.float32)
            np.testing.assert_array_equal(rewards[i], paid)
            aec_returns[i] += paid
            assert terminated[i] == any(aec.terminations.values())
            assert truncated[i] == any(aec.truncations.values())
            assert info["_final_obs"][i] == (terminated[i] or truncated[i])
            if info["_final_obs"][i]:
                for s, a in enumerate(agents):
                    np.testing.assert_array_equal(info["final_obs"][i, s],
                                                  aec.observe(a)["observation"])
                np.testing.assert_array_equal(returns[i], aec_returns[i])
                returns[i] = aec_returns[i] = 0
                ended += 1
                aec.reset()
    return ended


@pytest.mark.parametrize("reward", REWARD_MODES)
@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_envs=st.integers(1, 3), seed=st.integers(0, 2**32), action_seed=st.integers(0, 2**32),
       episode=st.sampled_from(("game", "round")), max_rounds=st.sampled_from((None, 1, 2)))
def test_rewards_terminations_and_masks_equal_the_aec_envs(
        game: str, reward: str, num_envs: int, seed: int, action_seed: int, episode: str,
        max_rounds: int | None) -> None:
    _agree(game, num_envs, seed, action_seed, 160, reward=reward, episode=episode,
           max_rounds=max_rounds)


@pytest.mark.parametrize("game", GAMES)
def test_whole_games_agree_with_the_aec_env(game: str) -> None:
    """Long enough that several episodes of every game end and restart in place."""
    assert _agree(game, 4, 11, 5, 900, reward="diff", episode="round") >= 4


def test_a_three_player_game_agrees_with_the_aec_env() -> None:
    assert _agree("pasur", 2, 3, 4, 300, num_players=3, reward="points", episode="round") >= 1
    assert AllSeatsEnv("pasur", players=3).num_players == 3  # the table's players flag


def test_a_game_plugged_in_from_elsewhere_gets_the_env() -> None:
    """The toy game of tests/toy_game: the env reads everything from the game table."""
    import toy_game

    toy_game.register()
    try:
        assert _agree("toy", 3, 2, 1, 200, reward="diff", episode="round") >= 3
    finally:
        toy_game.unregister()


# ---- API ---------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_shapes_dtypes_and_spaces(game: str) -> None:
    env = AllSeatsEnv(game, num_envs=5, reward="points")
    B, P, A, N = 5, env.num_players, env.num_actions, env.obs_size
    obs, mask, seat, info = env.reset(seed=0)
    assert obs.shape == (B, N) and obs.dtype == np.float32
    assert mask.shape == (B, A) and mask.dtype == np.bool_ and mask.any(axis=1).all()
    assert seat.shape == (B,) and seat.dtype == np.int64 and info == {}
    assert env.observation_space.shape == (B, N) and env.observation_space.contains(obs)
    assert env.single_observation_space.contains(obs[0])
    assert env.single_action_space.n == A and env.action_space.shape == (B,)
    actions = np.array([np.flatnonzero(m)[0] for m in mask])
    assert env.action_space.contains(actions)
    obs, mask, seat, rewards, terminated, truncated, info = env.step(actions)
    assert rewards.shape == (B, P) and rewards.dtype == np.float32
    assert terminated.shape == truncated.shape == (B,) and terminated.dtype == np.bool_
    assert info["final_obs"].shape == (B, P, N) and info["_final_obs"].shape == (B,)
    assert info["round_points"].shape == info["scores"].shape == (B, P)
    np.testing.assert_array_equal(env.action_masks(), mask)
    np.testing.assert_array_equal(env.current_seat, seat)
    np.testing.assert_array_equal(env.observe(seat), obs)
    assert env.observe(0).shape == (B, N)
    assert isinstance(env.render(1), str) and "AllSeatsEnv" in repr(env)


def test_the_same_seed_deals_the_same_games_whatever_the_batch() -> None:
    small = AllSeatsEnv("pasur", num_envs=2)
    large = AllSeatsEnv("pasur", num_envs=6)
    obs_s, mask_s, _, _ = small.reset(seed=7)
    obs_l, mask_l, _, _ = large.reset(seed=7)
    np.testing.assert_array_equal(obs_s, obs_l[:2])
    assert not np.array_equal(obs_l[0], obs_l[1])
    for game in GAMES:  # one game deals as the AEC env's reset(seed=seed)
        obs, _, seat, _ = AllSeatsEnv(game, num_envs=1).reset(seed=7)
        aec = game_info(game).aec_env_module().env()
        aec.reset(seed=7)
        np.testing.assert_array_equal(obs[0], aec.observe(f"player_{seat[0]}")["observation"])


def test_a_finished_game_restarts_in_the_same_step() -> None:
    env = AllSeatsEnv("pasur", num_envs=3, episode="round", reward="diff")
    _, mask, _, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        _, mask, _, rewards, terminated, _, info = env.step(actions)
        assert mask.any(axis=1).all()  # every returned row is a live decision
        if terminated.any():
            ended = np.flatnonzero(terminated)
            assert (rewards[ended] != 0).any() or (info["round_points"][ended] == 0).all()
            assert info["round_end"][ended].all()
            np.testing.assert_array_equal(rewards[ended].sum(axis=1), 0)  # diff: zero-sum
            assert info["final_obs"][ended].any(axis=2).all()
            assert not info["final_obs"][~terminated].any()
            return
    pytest.fail("no round ended in 400 steps")


# ---- errors --------------------------------------------------------------------------------
def test_an_illegal_action_is_refused_naming_the_games_and_nothing_moves() -> None:
    env = AllSeatsEnv("pasur", num_envs=4)
    obs, mask, seat, _ = env.reset(seed=3)
    actions = np.array([np.flatnonzero(m)[0] for m in mask])
    illegal = actions.copy()
    illegal[[1, 3]] = [int(np.flatnonzero(~mask[1])[0]), int(np.flatnonzero(~mask[3])[0])]
    state = env.engine.state.copy()
    with pytest.raises(ValueError, match=r"illegal action\(s\) in game\(s\) \[1, 3\]: game 1 "
                                         r"\(player_0\) got \d+ .*legal actions"):
        env.step(illegal)
    np.testing.assert_array_equal(env.engine.state, state)
    with pytest.raises(ValueError, match="game 0 .*no action id"):
        env.step(np.array([104, *actions[1:]]))
    env.step(actions)  # the env is still usable


@pytest.mark.parametrize("actions, error", [
    (None, TypeError), ([0.0, 1.0], TypeError), ([True, False], TypeError),
    ([0, 1, 2], ValueError), ("ab", TypeError)])
def test_actions_that_are_no_integer_array_are_refused(actions, error) -> None:
    env = AllSeatsEnv("pasur", num_envs=2)
    env.reset(seed=0)
    with pytest.raises(error):
        env.step(actions)


def test_bad_options_are_refused_in_the_projects_words() -> None:
    with pytest.raises(ValueError, match="unknown game 'pasr'"):
        AllSeatsEnv("pasr")
    with pytest.raises(ValueError, match="Persian Rummy is played by 4 players"):
        AllSeatsEnv("persian_rummy", players=2)
    with pytest.raises(TypeError, match="players must be an int"):
        AllSeatsEnv("pasur", players="2")
    with pytest.raises(ValueError, match="reward must be one of"):
        AllSeatsEnv("pasur", reward="score")
    with pytest.raises(ValueError, match="max_rounds"):
        AllSeatsEnv("pasur", max_rounds=0)
    with pytest.raises(ValueError, match="num_envs must be >= 1"):
        AllSeatsEnv("pasur", num_envs=0)
    with pytest.raises(TypeError):
        AllSeatsEnv("pasur", no_such_flag=True)


def test_calls_before_reset_and_bad_seeds_are_refused() -> None:
    env = AllSeatsEnv("pasur", num_envs=2)
    for call in (lambda: env.step([0, 0]), env.action_masks, lambda: env.observe(0)):
        with pytest.raises(RuntimeError, match="before reset"):
            call()
    with pytest.raises(ValueError):
        env.reset(seed=-1)
    with pytest.raises(TypeError):
        env.reset(seed=1.5)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="seats must be integer"):
        env.observe(0.5)
    with pytest.raises(ValueError, match="observer seats"):
        env.observe(2)


# ---- the example -----------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_the_self_play_example_runs_as_a_user_runs_it(game: str, tmp_path) -> None:
    """``examples/selfplay_random.py`` from a folder outside the repository."""
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "selfplay_random.py"
    out = subprocess.run(
        [sys.executable, str(example), "--game", game, "--num-envs", "8", "--steps", "400"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=True).stdout
    assert f"AllSeatsEnv(game='{game}'" in out and "episodes ended" in out
    assert "mean return per seat" in out  # 400 steps of 8 games end some rounds


def _example(name: str):
    """An example file as a module (examples/ is no package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", GAMES)
def test_the_ppo_self_play_example_runs_at_tiny_size(game: str, tmp_path) -> None:
    """``examples/ppo_selfplay.py`` through its command line, from outside the repository:
    it evaluates on duplicate deals, logs the curve, saves the network, and ``pasur eval``
    plays the saved network through the example's ``SelfPlayPPO`` agent spec."""
    pytest.importorskip("torch")
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "ppo_selfplay.py"
    shutil.copy(example, tmp_path / "ppo_selfplay.py")
    out = subprocess.run(
        [sys.executable, "ppo_selfplay.py", "--game", game, "--num-envs", "4", "--num-steps",
         "16", "--total-timesteps", "128", "--eval-every", "1", "--eval-rounds", "4",
         "--log-dir", "run"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
        check=True).stdout
    lines = [line for line in out.splitlines() if line.startswith("update ")]
    assert len(lines) == 2 and "vs random:" in lines[-1] and "vs greedy:" in lines[-1]
    evals = (tmp_path / "run" / "evals.csv").read_text().splitlines()
    assert evals[0].startswith("timesteps,opponent") and len(evals) == 1 + 2 * 2
    assert (tmp_path / "run" / "evals.png").stat().st_size > 0
    spec = "./ppo_selfplay.py:SelfPlayPPO:weights=run/model.pt"
    played = subprocess.run(
        [sys.executable, "-m", "agents", "eval", "--game", game, spec, "random", "--rounds",
         "4", "--json", "-"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
        check=True).stdout
    result = json.loads(played[played.index("{"):])
    assert result["rounds"] == 4 and result["a"].endswith("SelfPlayPPO:weights=run/model.pt")


def test_the_ppo_example_shaping_pays_a_rounds_points_in_total() -> None:
    """Potential-based shaping: over a whole round each seat's shaped rewards add up to
    its round reward (the potential is 0 once the round ended), in both games."""
    pytest.importorskip("torch")
    ppo = _example("ppo_selfplay")
    for game in GAMES:
        env = ppo.AllSeatsEnv(game, num_envs=8, reward="diff", episode="round")
        obs, mask, seat, _ = env.reset(seed=3)
        rng = np.random.default_rng(0)
        points = ppo.POINTS_SO_FAR[game]
        first = potential = ppo.seat_potential(env, points)
        plain, shaped = np.zeros((8, env.num_players)), np.zeros((8, env.num_players))
        ended = np.zeros(8, dtype=bool)
        while not ended.all():
            pick = (rng.random(8) * mask.sum(1)).astype(np.int64)
            actions = (mask.cumsum(1) <= pick[:, None]).sum(1)
            obs, mask, seat, rewards, term, trunc, _ = env.step(actions)
            done = term | trunc
            before, potential = potential, ppo.seat_potential(env, points)
            live = ~ended[:, None]
            plain += rewards * live
            shaped += ppo.shape(rewards, before, potential, done) * live
            ended |= done
        # the shaped return is the round's reward less the potential it started from
        np.testing.assert_allclose(shaped + first, plain, atol=1e-3)
        assert np.abs(plain).sum() > 0


def test_the_ppo_examples_advantages_follow_each_seats_own_decisions() -> None:
    """Seats 0, 1, 0, 1 move; the round ends on seat 1's move paying +1 / -1: both of
    seat 0's decisions earn +1 and both of seat 1's -1, though seat 0 did not end it."""
    pytest.importorskip("torch")
    ppo = _example("ppo_selfplay")
    rewards = np.zeros((4, 1, 2))
    rewards[3, 0] = [1.0, -1.0]
    seats = np.array([[0], [1], [0], [1]])
    ended = np.array([[False], [False], [False], [True]])
    adv = ppo.seat_advantages(rewards, np.zeros((4, 1)), seats, ended, np.full((1, 2), 9.0),
                              gamma=1.0, lam=1.0)
    np.testing.assert_array_equal(adv[:, 0], [1.0, -1.0, 1.0, -1.0])
    # without the episode end, the chains bootstrap from the seats' last values (9)
    adv = ppo.seat_advantages(rewards, np.zeros((4, 1)), seats, ended & False, np.full((1, 2), 9.0),
                              gamma=1.0, lam=1.0)
    np.testing.assert_array_equal(adv[:, 0], [10.0, 8.0, 10.0, 8.0])
