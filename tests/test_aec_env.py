"""The PettingZoo AEC env: API conformance, observations, rewards, no hidden-card leaks."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from pasur_env import Engine, Position, parse_cards, pasur_v0
from pasur_env.pasur.moves import determinize
from pasur_env.pasur.observation import encode, encode_numpy, observation_layout, observation_size

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 2, "episode": "round"},
    {"num_players": 3, "episode": "round"},
    {"num_players": 4, "episode": "round"},
    {"preset": "cfr_paper"},
    {"num_players": 2, "open_hand": True, "reward": "points"},
]


@pytest.mark.parametrize(
    "kwargs", CONFIGS, ids=lambda k: "-".join(f"{a}={b}" for a, b in k.items())
)
def test_pettingzoo_api_seed_render(kwargs: dict) -> None:
    api_test(pasur_v0.env(**kwargs), num_cycles=300)
    seed_test(lambda: pasur_v0.env(**kwargs), num_cycles=300)
    render_test(lambda render_mode=None: pasur_v0.env(render_mode=render_mode, **kwargs))


def test_metadata_and_spaces() -> None:
    env = pasur_v0.env(num_players=3)
    env.reset(seed=0)
    assert env.metadata["name"] == "pasur_v0" and env.metadata["is_parallelizable"] is False
    assert set(env.metadata["render_modes"]) == {"ansi", "human", "rgb_array"}
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    space = env.observation_space("player_0")
    assert space["observation"].shape == (observation_size(env.unwrapped.rules),)
    assert space["action_mask"].shape == (104,) and space["action_mask"].dtype == np.int8
    assert env.action_space("player_1").n == 104


def test_unknown_keyword_and_bad_values() -> None:
    with pytest.raises(TypeError, match="foo"):
        pasur_v0.env(foo=1)
    with pytest.raises(ValueError, match="reward"):
        pasur_v0.env(reward="money")
    with pytest.raises(ValueError, match="episode"):
        pasur_v0.env(episode="set")
    with pytest.raises(ValueError, match="preset"):
        pasur_v0.env(preset="nope")
    with pytest.raises(ValueError, match="max_rounds"):
        pasur_v0.env(max_rounds=0)


def test_illegal_action_raw_env_raises_and_wrapped_env_penalises() -> None:
    raw = pasur_v0.raw_env()
    raw.reset(seed=0)
    mask = raw.observe("player_0")["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    state = raw.engine.state.copy()
    with pytest.raises(ValueError, match=r"player_0.*legal actions"):
        raw.step(illegal)
    assert np.array_equal(state, raw.engine.state)
    env = pasur_v0.env()
    env.reset(seed=0)
    env.step(illegal)  # TerminateIllegalWrapper: the game ends, the offender gets -1
    assert env.terminations["player_0"] and env.rewards["player_0"] == -1


def test_mask_zero_for_others_and_same_agent_in_capture_phase() -> None:
    # player_0 holds 6C over A,2,2,4,10: two options -> CAPTURE phase
    deck = parse_cards("6C KS KH KD QS QH QD QC AC 2D 2H 4S")
    deck += [c for c in range(52) if c not in deck]
    env = pasur_v0.raw_env()
    env.reset(seed=0, options={"deck": deck})
    assert env.agent_selection == "player_0"
    assert not env.observe("player_1")["action_mask"].any()
    env.step(parse_cards("6C")[0])
    assert env.agent_selection == "player_0"  # still choosing its capture
    mask = env.observe("player_0")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [52 + parse_cards("AC")[0]]
    lay = observation_layout(env.rules)
    obs = env.observe("player_0")["observation"]
    o, _ = lay["pending"]
    assert obs[o + parse_cards("6C")[0]] == 1
    o, _ = lay["phase"]
    assert obs[o : o + 2].tolist() == [0, 1]


def test_observation_fields_after_scripted_deal() -> None:
    deck = parse_cards("AC 2C 3C 4C 5D 6D 7D 8D 9H 10H 9S 10S")
    deck += [c for c in range(52) if c not in deck]
    env = pasur_v0.raw_env()
    env.reset(seed=0, options={"deck": deck})
    lay = observation_layout(env.rules)
    obs = env.observe("player_0")["observation"]

    def plane(name: str, k: int = 0) -> set[int]:
        o, _ = lay[name]
        return set(np.flatnonzero(obs[o + 52 * k : o + 52 * (k + 1)]).tolist())

    assert plane("hand") == set(parse_cards("AC 2C 3C 4C"))
    assert plane("table") == set(parse_cards("9H 10H 9S 10S"))
    assert plane("unseen") == set(range(52)) - plane("hand") - plane("table")
    assert plane("pile", 0) == plane("pile", 1) == set()
    o, _ = lay["deal"]
    assert obs[o : o + 6].tolist() == [1, 0, 0, 0, 0, 0]
    o, _ = lay["stock"]
    assert obs[o] == pytest.approx(40 / 48)
    o, _ = lay["hand_size"]
    assert obs[o : o + 2].tolist() == [1, 1]
    o, _ = lay["dealer"]
    assert obs[o : o + 2].tolist() == [0, 1]  # player_1 deals
    o, _ = lay["last_capturer"]
    assert obs[o : o + 2].tolist() == [0, 0]
    # player_0 plays AC: takes 10H (lowest id 10 over 10S) -> pile of its own side
    env.step(parse_cards("AC")[0])
    assert env.agent_selection == "player_0"  # two tens: a choice
    env.step(52 + parse_cards("10H")[0])
    obs1 = env.observe("player_1")["observation"]
    o, _ = lay["pile"]
    # from player_1's seat its own side comes first: player_0's pile is relative side 1
    assert set(np.flatnonzero(obs1[o + 52 : o + 104]).tolist()) == set(parse_cards("AC 10H"))
    o, _ = lay["last_capturer"]
    assert obs1[o : o + 2].tolist() == [0, 1]
    assert encode(env.engine, [0], [1]).shape == (1, observation_size(env.rules))


@pytest.mark.parametrize(
    "flags",
    [
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 2, "open_hand": True},
    ],
)
def test_no_hidden_card_leak(flags: dict) -> None:
    """Permuting the cards hidden from a seat never changes that seat's observation."""
    eng = Engine(16, seed=7, **flags)
    rng = np.random.default_rng(0)
    for step in range(150):
        if step % 10 == 0:
            for b in range(0, 16, 5):
                for seat in range(eng.num_players):
                    copies = determinize(eng, b, 6, seat=seat, seed=step)
                    ref = encode(eng, [b], [seat])
                    assert np.array_equal(
                        encode(copies, seats=np.full(6, seat)), np.repeat(ref, 6, axis=0)
                    )
                    assert np.array_equal(
                        encode_numpy(copies, seats=np.full(6, seat)), np.repeat(ref, 6, axis=0)
                    )
        eng.step(eng.random_actions(rng))


@pytest.mark.parametrize(
    "flags",
    [
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 2, "open_hand": True},
    ],
)
def test_compiled_encoder_matches_numpy_encoder(flags: dict) -> None:
    eng = Engine(32, seed=3, **flags)
    rng = np.random.default_rng(1)
    for _ in range(200):
        eng.step(eng.random_actions(rng))
        for seat in range(eng.num_players):
            seats = np.full(32, seat)
            a, b = encode(eng, seats=seats), encode_numpy(eng, seats=seats)
            assert np.array_equal(a, b)
            assert a.min() >= 0 and a.max() <= 1


@pytest.mark.parametrize(
    "flags", [{"num_players": 2, "open_hand": True}, {"num_players": 3}, {"num_players": 4}]
)
def test_env_observation_is_the_batched_encoders(flags: dict) -> None:
    """raw_env.observe (one compiled call) == encode() + the engine's legal mask."""
    env = pasur_v0.raw_env(**flags)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(300):
        mover = env.agent_selection
        for agent in env.agents:
            seat = int(agent.split("_")[1])
            ob = env.observe(agent)
            assert ob["observation"].dtype == np.float32 and ob["action_mask"].dtype == np.int8
            assert np.array_equal(ob["observation"], encode(env.engine, [0], [seat])[0])
            want = env.engine.legal_mask()[0] if agent == mover else np.zeros(104, bool)
            assert np.array_equal(ob["action_mask"].astype(bool), want)
        mask = env.observe(mover)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        if not env.agents or env.terminations[env.agent_selection]:
            break


def last_turn_env(**kwargs) -> pasur_v0.raw_env:
    """An env whose game is at the last turn of a round: player_1 lays 9H, the end."""
    env = pasur_v0.raw_env(**kwargs)
    env.reset(seed=0)
    piles = [parse_cards("AC AD AH AS JC JD JH JS 10D 2C"), []]
    named = set(piles[0]) | {parse_cards("9H")[0]}
    piles[1] = [c for c in range(52) if c not in named]
    pos = Position(
        hands=[[], parse_cards("9H")],
        table=[],
        stock=[],
        piles=piles,
        dealer=1,
        surs=[1, 0],
        last_capturer=0,
    )
    env.engine.state[:] = Engine.from_positions([pos], rules=env.rules).state
    env.agent_selection = "player_1"
    return env


@pytest.mark.parametrize(
    "reward, expected",
    [
        ("points", {"player_0": 13 + 5, "player_1": 7}),  # 13 card points + a sur; 10 clubs
        ("diff", {"player_0": 11, "player_1": -11}),
        ("win", {"player_0": 1, "player_1": -1}),
    ],
)
def test_rewards_per_mode_at_round_end(reward: str, expected: dict) -> None:
    env = last_turn_env(reward=reward, episode="round")
    env.step(parse_cards("9H")[0])
    assert env.rewards == expected
    assert env._cumulative_rewards == expected
    for agent in env.agents:
        assert env.infos[agent]["round_points"] == [18, 7]
        assert env.infos[agent]["scores"] == [18, 7]
    assert all(env.terminations.values())


def test_points_reward_in_game_mode_continues() -> None:
    env = last_turn_env(reward="points")
    env.step(parse_cards("9H")[0])
    assert env.rewards == {"player_0": 18, "player_1": 7}
    assert not any(env.terminations.values())  # game to 62 goes on
    assert env.engine.round_index[0] == 1


def test_team_rewards_four_players() -> None:
    env = pasur_v0.raw_env(num_players=4, reward="diff", episode="round")
    env.reset(seed=5)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        total[agent] += rew
        if term or trunc:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert total["player_0"] == total["player_2"] == -total["player_1"] == -total["player_3"]


def test_full_game_to_62() -> None:
    env = pasur_v0.env(reward="win")
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    round_points = []
    last_scores = None
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        returns[agent] += rew
        if "round_points" in info and info["scores"] != last_scores:
            round_points.append(info["round_points"])
            last_scores = info["scores"]
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = np.sum(round_points, axis=0)
    assert scores.tolist() == last_scores
    assert max(scores) >= 62 and scores[0] != scores[1]
    winner = int(np.argmax(scores))
    assert returns[f"player_{winner}"] == 1 and returns[f"player_{1 - winner}"] == -1


def test_max_rounds_truncates() -> None:
    env = pasur_v0.raw_env(max_rounds=1, target_score=500)
    env.reset(seed=2)
    while not any(env.truncations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    assert env.rounds_played == 1 and not any(env.terminations.values())


def test_reset_seed_reproducible_and_deck_option() -> None:
    a, b = pasur_v0.raw_env(), pasur_v0.raw_env()
    a.reset(seed=3)
    b.reset(seed=3)
    assert np.array_equal(
        a.observe("player_0")["observation"], b.observe("player_0")["observation"]
    )
    deck = list(range(52))
    a.reset(options={"deck": deck, "dealer": 0})
    assert a.agent_selection == "player_1" and a.engine.hand(0, 1) == [0, 1, 2, 3]


def test_render_ansi_shows_hand_and_hides_opponent() -> None:
    env = pasur_v0.env(render_mode="ansi")
    env.reset(options={"deck": list(range(52))})
    text = env.render()
    assert "A♣" in text and "table:" in text and "##" in text and "player_0" in text
