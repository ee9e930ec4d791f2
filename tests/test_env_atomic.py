"""Envs never go out of sync: bad input is refused before anything changes, and a step
that raises half-way leaves the env needing ``reset()`` (the rule of every env kind,
both games)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

from pasur_env import PasurSingleAgentEnv, PersianRummySingleAgentEnv, pasur_v0, persian_rummy_v0
from pasur_env.core.policy import RandomPolicy

GAMES = ["pasur", "rummy"]
AEC = {"pasur": pasur_v0, "rummy": persian_rummy_v0}
SINGLE = {"pasur": PasurSingleAgentEnv, "rummy": PersianRummySingleAgentEnv}
GYM_ID = {"pasur": "pasur_env/Pasur-v0", "rummy": "pasur_env/PersianRummy-v0"}
NUM_ACTIONS = {"pasur": 104, "rummy": 245}


def vec_cls(game: str) -> type:
    pytest.importorskip("stable_baselines3")
    from pasur_env import PasurVecEnv, PersianRummyVecEnv

    return {"pasur": PasurVecEnv, "rummy": PersianRummyVecEnv}[game]


class Boom(RuntimeError):
    """What the test policies raise."""


class ArmedPolicy(RandomPolicy):
    """Random legal play that raises once armed."""

    armed = False

    def act(self, obs, mask, view):  # noqa: ANN001, ANN201
        if self.armed:
            raise Boom("opponent failed")
        return super().act(obs, mask, view)


def legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


# ---- 1. reset validates its arguments before anything changes ------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_aec_numpy_seed_is_an_int_seed(game):
    a, b = AEC[game].env(), AEC[game].env()
    a.reset(seed=np.int64(5))
    b.reset(seed=5)
    for _ in range(6):
        oa, ob = a.last(), b.last()
        np.testing.assert_array_equal(oa[0]["observation"], ob[0]["observation"])
        np.testing.assert_array_equal(oa[0]["action_mask"], ob[0]["action_mask"])
        a.step(legal(oa[0]["action_mask"]))
        b.step(legal(ob[0]["action_mask"]))
    assert a.action_space("player_0").sample() == b.action_space("player_0").sample()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [-1, "5", 1.5, True])
def test_aec_bad_reset_changes_nothing(game, seed):
    e = AEC[game].raw_env()
    e.reset(seed=3)
    e.step(legal(e.observe(e.agent_selection)["action_mask"]))
    before = (e.agent_selection, e.engine.state.copy(), e.observe(e.agent_selection))
    with pytest.raises((TypeError, ValueError), match="seed"):
        e.reset(seed=seed)
    with pytest.raises(ValueError, match="dek"):
        e.reset(seed=4, options={"dek": [0]})
    assert e.agent_selection == before[0]
    np.testing.assert_array_equal(e.engine.state, before[1])
    mask = e.observe(e.agent_selection)["action_mask"]
    np.testing.assert_array_equal(mask, before[2]["action_mask"])
    np.testing.assert_array_equal(mask.astype(bool), e.engine.legal_mask()[0])


@pytest.mark.parametrize("game", GAMES)
def test_aec_failed_first_reset_is_a_clear_error(game):
    e = AEC[game].raw_env()
    with pytest.raises(TypeError, match="seed"):
        e.reset(seed="x")
    e.reset(seed=1)
    assert e.agents == e.possible_agents


@pytest.mark.parametrize("game", GAMES)
def test_training_envs_take_numpy_seeds(game):
    a, b = SINGLE[game](), SINGLE[game]()
    np.testing.assert_array_equal(a.reset(seed=np.int64(7))[0], b.reset(seed=7)[0])
    assert a.action_space.sample() == b.action_space.sample()
    V = vec_cls(game)
    va, vb = V(num_envs=2, seed=np.int64(3)), V(num_envs=2, seed=3)
    np.testing.assert_array_equal(va.reset(), vb.reset())
    va.seed(np.int64(9))
    vb.seed(9)
    np.testing.assert_array_equal(va.reset(), vb.reset())


# ---- 2. a step that raises half-way leaves the env needing reset() -------------------------
def _single(game: str, **kw) -> tuple[gymnasium.Env, ArmedPolicy]:
    pol = ArmedPolicy(0)
    extra = {"partner": ArmedPolicy(1)} if game == "rummy" else {}
    return SINGLE[game](opponent=pol, **extra, **kw), pol


def _raise_in_step(step, masks, pol: ArmedPolicy) -> None:
    """Step legal actions with the opponent armed until it raises."""
    pol.armed = True
    for _ in range(50):
        try:
            step(masks())
        except Boom:
            return
    raise AssertionError("the opponent was never asked")


@pytest.mark.parametrize("game", GAMES)
def test_single_agent_opponent_raising_needs_reset(game):
    env, pol = _single(game)
    env.reset(seed=2)
    _raise_in_step(lambda m: env.step(legal(m)), env.action_masks, pol)
    for call in (env.action_masks, lambda: env.step(0), env.render):
        with pytest.raises(RuntimeError, match=r"reset\(\)"):
            call()
    pol.armed = False
    obs, _ = env.reset(seed=2)
    assert obs.shape == env.observation_space.shape
    env.step(legal(env.action_masks()))


@pytest.mark.parametrize("game", GAMES)
def test_vector_env_opponent_raising_needs_reset(game):
    pol = ArmedPolicy(0)
    extra = {"partner": ArmedPolicy(1)} if game == "rummy" else {}
    env = vec_cls(game)(num_envs=3, opponent=pol, seed=1, **extra)
    env.reset()
    first = lambda m: m.argmax(axis=1)  # noqa: E731
    _raise_in_step(lambda m: env.step(first(m)), env.action_masks, pol)
    for call in (env.action_masks, lambda: env.step(np.zeros(3, dtype=np.int64)),
                 lambda: env.env_method("action_masks")):  # SB3's masked algorithms ask this way
        with pytest.raises(RuntimeError, match=r"reset\(\)"):
            call()
    pol.armed = False
    env.reset()
    env.step(first(env.action_masks()))


@pytest.mark.parametrize("game", GAMES)
def test_single_agent_render_or_reward_raising_needs_reset(game, monkeypatch):
    env, _ = _single(game, render_mode="human")
    env.reset(seed=2)

    def broken_render():
        raise Boom("render failed")

    monkeypatch.setattr(env, "render", broken_render)
    with pytest.raises(Boom):
        env.step(legal(env.action_masks()))
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.action_masks()
    monkeypatch.undo()
    env.render_mode = None
    env.reset(seed=2)
    import pasur_env.core.learner_games as lg

    def broken_rewards(*a, **k):
        raise Boom("reward failed")

    monkeypatch.setattr(lg, "seat_rewards", broken_rewards)
    with pytest.raises(Boom):
        for _ in range(300):
            env.step(legal(env.action_masks()))
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(0)


@pytest.mark.parametrize("game", GAMES)
def test_aec_render_raising_needs_reset(game, monkeypatch):
    e = AEC[game].raw_env(render_mode="human")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.reset(seed=1)

    def broken_render():
        raise Boom("render failed")

    monkeypatch.setattr(e, "render", broken_render)
    with pytest.raises(Boom):
        e.step(legal(e.observe(e.agent_selection)["action_mask"]))
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), e.last):
        with pytest.raises(RuntimeError, match=r"reset\(\)"):
            call()
    monkeypatch.undo()
    e.render_mode = None
    e.reset(seed=1)
    e.step(legal(e.observe(e.agent_selection)["action_mask"]))


# ---- 3. unknown reset options are an error everywhere --------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_unknown_reset_option_is_an_error(game):
    e = AEC[game].env()
    with pytest.raises(ValueError, match=r"dek.*deck"):
        e.reset(seed=0, options={"dek": None})
    s = SINGLE[game]()
    with pytest.raises(ValueError, match=r"dek.*deck"):
        s.reset(seed=0, options={"dek": None})
    v = vec_cls(game)(num_envs=2)
    v.set_options({"dek": None})
    with pytest.raises(ValueError, match=r"dek.*deck"):
        v.reset()
    with pytest.raises(TypeError, match="options"):
        s.reset(options=[("deck", None)])


# ---- 4. the same options in every env of both games ----------------------------------------
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", ["2", -3, 0, [1], 2.0, True])
def test_max_rounds_checked_in_every_env(game, bad):
    with pytest.raises(ValueError, match="max_rounds"):
        AEC[game].raw_env(max_rounds=bad)
    with pytest.raises(ValueError, match="max_rounds"):
        SINGLE[game](max_rounds=bad)
    with pytest.raises(ValueError, match="max_rounds"):
        gymnasium.make(GYM_ID[game], max_rounds=bad)
    with pytest.raises(ValueError, match="max_rounds"):
        vec_cls(game)(num_envs=2, max_rounds=bad)


@pytest.mark.parametrize("game", GAMES)
def test_random_learner_seat_and_rgb_array(game):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gymnasium.make(GYM_ID[game], learner_seat="random", render_mode="rgb_array")
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(12)}
    assert len(seats) > 1
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    v = vec_cls(game)(num_envs=8, learner_seat="random", seed=0)
    assert len(set(v.get_attr("learner_seat"))) > 1


# ---- 5. a game ended by the illegal-move wrapper shows no legal actions --------------------
@pytest.mark.parametrize("game", GAMES)
def test_illegal_move_end_masks_everything(game):
    e = AEC[game].env()
    e.reset(seed=0)
    mask = e.last()[0]["action_mask"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(int(np.flatnonzero(mask == 0)[0]))
    for agent in e.possible_agents:
        assert not e.observe(agent)["action_mask"].any(), agent
    obs, reward, term, _, _ = e.last()
    assert term and not obs["action_mask"].any()


# ---- 6. action checks are real checks, in the project's words ------------------------------
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("wrapped", [True, False])
def test_aec_action_checks(game, wrapped):
    e = AEC[game].env() if wrapped else AEC[game].raw_env()
    e.reset(seed=0)
    n = NUM_ACTIONS[game]
    for bad in (n, -1, 2**63, np.uint64(2**63)):
        with pytest.raises(ValueError, match=f"0..{n - 1}"):
            e.step(bad)
    for bad in (True, np.bool_(False), np.array([True]), 1.0, "3"):
        with pytest.raises(TypeError, match="action"):
            e.step(bad)
    assert not any(e.terminations.values())  # none of these ended the game
    e.step(legal(e.last()[0]["action_mask"]))


@pytest.mark.parametrize("game", GAMES)
def test_training_env_action_checks(game):
    env = SINGLE[game]()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="2147483648|9223372036854775808"):
        env.step(2**63)
    with pytest.raises(TypeError, match="True"):
        env.step(True)
    env.step(legal(env.action_masks()))
    v = vec_cls(game)(num_envs=2, seed=0)
    v.reset()
    with pytest.raises(ValueError, match="actions"):
        v.step(np.array([2**63, 2**63], dtype=np.uint64))
    with pytest.raises(TypeError, match="indices"):
        v.get_attr("learner_seat", indices=1.5)
    v.step(v.action_masks().argmax(axis=1))
