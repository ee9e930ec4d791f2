"""What users wrote against the tree before it was split into core / pasur / rummy keeps working.

The public names of ``pasur_env`` and ``agents``, the Gymnasium ids, the old module paths
(scripts and pickles name them: RLlib checkpoints hold ``agents.rllib_module``) and the
shipped pretrained files. The old paths resolve to the *same* module objects as the new
ones (:mod:`pasur_env.core.aliases`), so classes compare equal and nothing loads twice.
"""

from __future__ import annotations

import importlib
import pickle

import gymnasium
import numpy as np
import pytest

import agents
import pasur_env

#: ``pasur_env.__all__`` before the split, every name of which must still import
EXPORTED_BEFORE = [
    "CallablePolicy", "Engine", "FixedOpponent", "GameView", "Opponent", "OpponentSource",
    "PRESETS", "PasurSingleAgentEnv", "PasurVecEnv", "Policy", "Position", "RULE_FLAGS",
    "RandomPolicy", "Rules", "StepInfo", "action_str", "as_opponents", "as_policy",
    "card_code", "card_str", "check_actions", "env", "make_rules", "parse_card",
    "parse_cards", "parse_deck", "pasur_v0", "persian_rummy_v0", "raw_env",
]
OLD_MODULES = sorted({**pasur_env.MOVED_MODULES, **agents.MOVED_MODULES}.items())


@pytest.mark.parametrize("name", EXPORTED_BEFORE)
def test_every_name_exported_before_still_imports(name: str) -> None:
    if name == "PasurVecEnv":
        pytest.importorskip("stable_baselines3", reason="the train extra")
    assert getattr(pasur_env, name) is not None
    assert name in pasur_env.__all__


@pytest.mark.parametrize(("old", "new"), OLD_MODULES, ids=[o for o, _ in OLD_MODULES])
def test_an_old_module_path_is_the_new_module(old: str, new: str) -> None:
    try:
        module = importlib.import_module(old)
    except ImportError as err:  # the RLlib modules need the Ray venv, the vector env SB3
        missing = getattr(err, "name", None) or ""
        if missing.split(".")[0] in ("ray", "stable_baselines3", "sb3_contrib", "torch"):
            pytest.skip(f"{missing} is not installed (an optional extra)")
        raise
    assert module is importlib.import_module(new)
    assert module.__name__ == new and module.__spec__.name == new


def test_a_submodule_below_an_old_package_path_is_the_new_one() -> None:
    import pasur_env.kernels.state as old_state
    from pasur_env.pasur.kernels import state

    assert old_state is state
    from pasur_env.kernels import step_kernel
    from pasur_env.pasur.kernels import step_kernel as new_step_kernel

    assert step_kernel is new_step_kernel


def test_a_pickle_naming_an_old_path_loads_the_new_class() -> None:
    from pasur_env.pasur.rules import Rules

    rules = pickle.loads(b"cpasur_env.rules\nRules\n.")  # the old module path, protocol 0
    assert rules is Rules
    engine = pasur_env.Engine(2, seed=0)
    assert np.array_equal(pickle.loads(pickle.dumps(engine)).state, engine.state)


def test_a_name_that_never_existed_still_fails() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("pasur_env.no_such_module")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("pasur_env.kernels.no_such_kernel")


@pytest.mark.parametrize("game_id", ["pasur_env/Pasur-v0", "pasur_env/PersianRummy-v0"])
def test_the_gymnasium_ids(game_id: str) -> None:
    env = gymnasium.make(game_id)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    env.close()


@pytest.mark.parametrize("name", ["net", "ppo"])
def test_the_shipped_pretrained_agents_load_and_act(name: str) -> None:
    if name == "ppo":
        pytest.importorskip("sb3_contrib", reason="the train extra")
    else:
        pytest.importorskip("torch", reason="the train extra")
    agent = agents.make_agent(name, seed=0)
    engine = pasur_env.Engine(8, seed=0)
    mask = engine.legal_mask()
    view = pasur_env.GameView.all(engine)
    obs = engine.observe() if agent.needs_observation else None
    acts = agent.act(obs, mask, view)
    assert mask[np.arange(8), acts].all()
