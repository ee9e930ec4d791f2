"""The learner's legal actions where every RL library looks for them, in both games:
``env.action_masks()`` on what ``gymnasium.make`` returns (and through wrappers),
``info["action_mask"]`` at every reset and step, ``gymnasium.make_vec`` with a right
mask after each auto-reset in both autoreset modes, and the dict observation."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from gymnasium.vector import AutoresetMode

import pasur_env  # noqa: F401 - registers the ids
from pasur_env.games import GAMES

IDS = [GAMES[g].gym_id for g in GAMES.ids]


def legal(env: gymnasium.Env) -> np.ndarray:
    """The engine's legal actions of the learner (all False once the episode ended)."""
    return env.unwrapped.games.learner_masks()[0]


@pytest.mark.parametrize("gym_id", IDS)
def test_made_env_gives_its_masks_directly_and_through_wrappers(gym_id):
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = gymnasium.make(gym_id)
    _, info = env.reset(seed=3)
    mask = env.action_masks()  # no AttributeError: make returns the env itself
    assert mask.any() and np.array_equal(mask, legal(env))
    wrapped = gymnasium.wrappers.RecordEpisodeStatistics(env)
    assert np.array_equal(wrapped.get_wrapper_attr("action_masks")(), mask)
    assert np.array_equal(get_action_masks(wrapped), mask)  # MaskablePPO's lookup
    assert np.array_equal(info["action_mask"], mask)


@pytest.mark.parametrize("gym_id", IDS)
def test_info_has_the_mask_at_every_reset_and_step(gym_id):
    env = gymnasium.make(gym_id)
    rng = np.random.default_rng(0)
    for episode in range(2):
        _, info = env.reset(seed=episode)
        done = False
        while not done:
            mask = info["action_mask"]
            assert mask.dtype == bool and mask.any()
            assert np.array_equal(mask, legal(env)) and np.array_equal(mask, env.action_masks())
            _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
        # ended: nothing is legal, and the mask allows any action (a vector env's
        # next step ignores it and resets the game)
        assert not legal(env).any() and info["action_mask"].all()


def _make_vec(gym_id: str, mode: AutoresetMode, how: str,
              num_envs: int) -> gymnasium.vector.VectorEnv:
    if how == "vector_entry_point":
        return gymnasium.make_vec(gym_id, num_envs=num_envs, autoreset_mode=mode)
    return gymnasium.make_vec(gym_id, num_envs=num_envs, vectorization_mode=how,
                              vector_kwargs={"autoreset_mode": mode})


def _legal_rows(vec: gymnasium.vector.VectorEnv) -> np.ndarray:
    """Each game's legal actions read from its engine."""
    u = vec.unwrapped
    if hasattr(u, "games"):
        return u.games.learner_masks()
    return np.stack([legal(e) for e in u.envs])


@pytest.mark.parametrize("how", ["vector_entry_point", "sync"])
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("gym_id", IDS)
def test_make_vec_masks_after_every_auto_reset(gym_id, mode, how):
    vec = _make_vec(gym_id, mode, how, 2)
    assert vec.metadata["autoreset_mode"] == mode
    _, info = vec.reset(seed=5)
    rng = np.random.default_rng(0)
    restarted = np.zeros(2, dtype=np.int64)
    pending = np.zeros(2, dtype=bool)  # NEXT_STEP: ended, restarted by the next step
    for _ in range(2000):
        masks = info["action_mask"]
        assert info["_action_mask"].all() and masks.shape[0] == 2
        assert np.array_equal(masks, np.stack(vec.call("action_masks")))
        # a standard loop: every game's action sampled from its mask (no IndexError)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, _, term, trunc, info = vec.step(acts)
        ended = term | trunc
        if mode == AutoresetMode.SAME_STEP:
            for i in np.flatnonzero(ended):  # the ended deal's last view, not the new one's
                assert not np.array_equal(info["final_obs"][i], obs[i])
        just = pending if mode == AutoresetMode.NEXT_STEP else ended
        legal_now = _legal_rows(vec)
        for i in np.flatnonzero(just):
            # after the auto-reset: the new episode's legal actions, not all False/True
            assert info["action_mask"][i].any() and not info["action_mask"][i].all()
            assert np.array_equal(info["action_mask"][i], legal_now[i])
        restarted += just
        pending = ended if mode == AutoresetMode.NEXT_STEP else pending
        if (restarted >= 2).all():
            break
    assert (restarted >= 2).all()
    vec.close()


@pytest.mark.parametrize("gym_id", IDS)
def test_vector_entry_point_seeds_like_the_single_env(gym_id):
    vec = gymnasium.make_vec(gym_id, num_envs=2)
    obs, _ = vec.reset(seed=7)
    single = gymnasium.make(gym_id)
    for i in range(2):
        o, _ = single.reset(seed=7 + i)
        assert np.array_equal(obs[i], o)
    with pytest.raises(ValueError, match="autoreset_mode"):
        gymnasium.make_vec(gym_id, num_envs=2, autoreset_mode="Disabled")


@pytest.mark.parametrize("gym_id", IDS)
def test_dict_observation_passes_the_checkers(gym_id):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checkers have nothing to say
        # check_step_determinism samples before a seeded reset: "random" keeps it legal
        gym_check_env(gymnasium.make(gym_id, mask_in_obs=True, illegal_action="random"),
                      skip_render_check=True)
        sb3_check_env(gymnasium.make(gym_id, mask_in_obs=True))
    env = gymnasium.make(gym_id, mask_in_obs=True)
    obs, info = env.reset(seed=1)
    assert set(obs) == {"observation", "action_mask"} and env.observation_space.contains(obs)
    assert np.array_equal(obs["action_mask"], info["action_mask"].astype(np.int8))
    vec = gymnasium.make_vec(gym_id, num_envs=2, mask_in_obs=True)
    vobs, vinfo = vec.reset(seed=1)
    assert vec.observation_space.contains(vobs)
    assert np.array_equal(vobs["action_mask"], vinfo["action_mask"].astype(np.int8))
    with pytest.raises(TypeError, match="mask_in_obs"):
        gymnasium.make(gym_id, mask_in_obs="yes")
