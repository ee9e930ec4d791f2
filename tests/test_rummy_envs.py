"""Persian Rummy envs: PettingZoo api/seed tests, Gymnasium and SB3 checkers, rewards."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from pasur_env import persian_rummy_v0
from pasur_env.rummy import kernels as K
from pasur_env.rummy.decks import deck_for
from pasur_env.rummy.single_agent import PersianRummySingleAgentEnv

HANDS_D = ["QC QD QH QS 2H 3H 4H", "2D 4D 6C 8D JH 3C 5D",
           "AC 4C 6D 8H 9C 3D 10H", "2S 4S 6S 7D 9D KC KH"]
GO_OUT = [0, 58 + 44, 58 + 45, 58 + 46, 58 + 47, 114, 58 + 6, 58 + 10, 58 + 14, 58 + 18, 114]


def test_pettingzoo_api_and_seed_tests():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(persian_rummy_v0.env(), num_cycles=300)
        seed_test(persian_rummy_v0.env, num_cycles=300)


def random_episode(env, seed: int) -> tuple[dict, dict]:
    """Play random legal actions; returns each agent's final reward and info."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final_r, final_info = {}, {}
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        a = None
        if term or trunc:
            final_r[agent], final_info[agent] = r, info
        else:
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(a)
    return final_r, final_info


def test_aec_episode_game_pays_win_and_reports_infos():
    env = persian_rummy_v0.env(reward="win")
    final_r, final_info = random_episode(env, 1)
    rewards = [final_r[a] for a in env.possible_agents]
    assert rewards[0] == rewards[2] and rewards[1] == rewards[3] and rewards[0] == -rewards[1]
    info = final_info["player_0"]
    assert set(info) == {"round_points", "scores"} and len(info["scores"]) == 4


@pytest.mark.parametrize("reward, expect", [("points", [64, -86]), ("diff", [150, -150]),
                                            ("win", [1, -1])])
def test_aec_rewards_of_a_scripted_round(reward, expect):
    env = persian_rummy_v0.env(reward=reward, episode="round")
    env.reset(options={"deck": deck_for(HANDS_D, "JC", "5H")})
    for a in GO_OUT:
        assert env.agent_selection == "player_0"
        env.step(a)
    # team 0: 80 (four queens laid at once) + 14 (2H-5H) + 25 - 55 left in seat 2's hand;
    # team 1: -38 - 48 left in its hands
    assert {a: env.rewards[a] for a in env.agents} == {
        "player_0": expect[0], "player_1": expect[1], "player_2": expect[0],
        "player_3": expect[1]}
    assert env.infos["player_1"]["round_points"] == [64, -86, 64, -86]
    assert all(env.terminations.values())


def test_aec_mask_only_for_the_agent_to_move_and_render():
    env = persian_rummy_v0.env(render_mode="ansi")
    env.reset(seed=0)
    assert env.observe("player_1")["action_mask"].sum() == 0
    obs = env.observe("player_0")
    assert obs["action_mask"][K.DRAW_STOCK] == 1 and obs["observation"].shape == (685,)
    assert env.observation_space("player_0").contains(obs)
    text = env.render()
    assert "player_0 (team 0)" in text and "7 cards, known" in text


def test_aec_illegal_action_is_refused_by_the_raw_env():
    env = persian_rummy_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action 114 .MELD. for player_0"):
        env.step(114)


def test_aec_rejects_bad_options():
    for kwargs, err in (({"reward": "score"}, ValueError), ({"episode": "match"}, ValueError),
                        ({"deals": 0}, ValueError), ({"four_set_double": "yes"}, ValueError),
                        ({"num_players": 2}, TypeError), ({"max_rounds": 0}, ValueError),
                        ({"render_mode": "rgb"}, ValueError)):
        with pytest.raises(err):
            persian_rummy_v0.env(**kwargs)


def test_gymnasium_and_sb3_checkers():
    pytest.importorskip("stable_baselines3", reason="the train extra")
    from gymnasium.utils.env_checker import check_env as gym_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(gymnasium.make("pasur_env/PersianRummy-v0",
                                     illegal_action="random").unwrapped)
        sb3_check_env(PersianRummySingleAgentEnv(), warn=True)


def test_single_agent_plays_to_the_end_with_masks():
    env = PersianRummySingleAgentEnv(learner_seat=1, episode="game", reward="points")
    obs, info = env.reset(seed=4)
    assert info["learner_seat"] == 1 and env.engine.mover() == 1
    total, rounds, done = 0.0, 0, False
    while not done:
        mask = env.action_masks()
        assert mask.any() and env.action_space.sample() in np.flatnonzero(mask)
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
        total += r
        if "round_points" in info:
            rounds += 1
            assert r == info["round_points"][1]
        done = term or trunc
    assert rounds == 2 and env.action_masks().all() and not env.games.learner_masks().any()
    with pytest.raises(RuntimeError, match="episode has ended"):
        env.step(0)


def test_single_agent_illegal_action_raises_or_is_replaced():
    env = PersianRummySingleAgentEnv()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action 114"):
        env.step(114)
    env = PersianRummySingleAgentEnv(illegal_action="random")
    env.reset(seed=0)
    _, _, _, _, info = env.step(114)
    assert info["illegal_action"] == 114
    with pytest.raises(ValueError, match="learner_seat"):
        PersianRummySingleAgentEnv(learner_seat=4)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"players": 2})


def test_vector_env_matches_the_single_env_and_restarts_games():
    pytest.importorskip("stable_baselines3", reason="the train extra")
    from pasur_env.rummy.vector_env import PersianRummyVecEnv

    vec = PersianRummyVecEnv(4, seed=10)
    single = PersianRummySingleAgentEnv()
    for i in range(4):
        obs, _ = single.reset(seed=10 + i)
        # same deal: the learner's hand and the table agree before any decision
        assert (single.engine.state[0, K.DECK:K.DECK + 56]
                == vec.games.engine.state[i, K.DECK:K.DECK + 56]).all()
    ends = 0
    for _ in range(300):
        masks = vec.action_masks()
        acts = np.array([int(np.flatnonzero(m)[0]) for m in masks])
        obs, rewards, dones, infos = vec.step(acts)
        assert obs.shape == (4, 685) and rewards.shape == (4,)
        for i in np.flatnonzero(dones):
            ends += 1
            assert "terminal_observation" in infos[i] and "round_points" in infos[i]
    assert ends > 0 and vec.action_masks().any(axis=1).all()


def test_maskable_ppo_learns_a_few_steps_on_both_training_envs():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from pasur_env.rummy.vector_env import PersianRummyVecEnv

    for env in (PersianRummyVecEnv(4, seed=0), PersianRummySingleAgentEnv()):
        model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0)
        model.learn(64)


def test_rgb_array_and_svg_pictures_hide_other_hands() -> None:
    """The picture render (as for Pasur): an image of the table; the SVG shows the
    mover's hand face up and the other hands face down (their cards never drawn)."""
    import re

    from pasur_env import persian_rummy_v0
    from pasur_env.rummy.cards import card_str

    env = persian_rummy_v0.env(render_mode="rgb_array", episode="round")
    env.reset(seed=3)
    frame = env.render()
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype.name == "uint8"
    assert frame.std() > 0  # not a blank image
    raw = env.unwrapped
    mover = raw._seat[env.agent_selection]
    svg = raw.svg()
    assert svg.startswith("<svg")
    eng = raw.engine
    drawn = len(re.findall(r'fill="#24457a"', svg))  # card backs
    others = sum(len(eng.hand(0, s)) for s in range(4) if s != mover)
    assert drawn >= others > 0
    assert len(eng.hand(0, mover)) > 0 and card_str(eng.hand(0, mover)[0])
