"""What users wrote against the tree before it was split into core / pasur / rummy: the
public names of ``pasur_env`` and ``agents``, the Gymnasium ids and the shipped pretrained
files keep working; the modules that moved answer only to their new names (the import
hook that kept the old ones is gone; CHANGELOG.md lists every move). The one old name
kept, ``agents.rllib_module`` (saved RLlib modules pickle it), is tested with Ray
(``tests/test_rllib.py``).
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
#: every module that moved, old name -> new one (CHANGELOG.md lists them): the old names
#: are gone; ``agents.rllib_module`` alone stays (saved RLlib modules pickle it)
MOVED = {
    "agents._moves": "agents.pasur.moves",
    "agents.base": "agents.core.base",
    "agents.cli": "agents.apps.cli",
    "agents.endgame": "agents.pasur.endgame",
    "agents.greedy": "agents.pasur.greedy",
    "agents.heuristic": "agents.pasur.heuristic",
    "agents.inference": "agents.pasur.inference",
    "agents.ismcts": "agents.pasur.ismcts",
    "agents.match": "agents.evaluation.match",
    "agents.move_net": "agents.core.move_net",
    "agents.net": "agents.pasur.move_net",
    "agents.pasur._moves": "agents.pasur.moves",
    "agents.pasur.net": "agents.pasur.move_net",
    "agents.play": "agents.apps.terminal",
    "agents.progress": "agents.evaluation.progress",
    "agents.results": "agents.evaluation.results",
    "agents.rllib_agent": "agents.learned.rllib_agent",
    "agents.rummy.net": "agents.rummy.move_net",
    "agents.sb3_policy": "agents.learned.sb3",
    "agents.search": "agents.core.search",
    "agents.stats": "agents.evaluation.stats",
    "agents.tournament": "agents.evaluation.tournament",
    "agents.web": "agents.apps.web",
    "pasur_env.aec_env": "pasur_env.pasur.aec_env",
    "pasur_env.batch_args": "pasur_env.core.args",
    "pasur_env.cards": "pasur_env.pasur.cards",
    "pasur_env.drawing": "pasur_env.pasur.drawing",
    "pasur_env.engine": "pasur_env.pasur.engine",
    "pasur_env.kernels": "pasur_env.pasur.kernels",
    "pasur_env.kernels.bits": "pasur_env.core.bits",
    "pasur_env.kernels.compile": "pasur_env.core.compile",
    "pasur_env.learner_games": "pasur_env.pasur.learner_games",
    "pasur_env.loop": "pasur_env.core.loop",
    "pasur_env.move_features": "pasur_env.pasur.move_features",
    "pasur_env.observation": "pasur_env.pasur.observation",
    "pasur_env.options": "pasur_env.core.options",
    "pasur_env.policy": "pasur_env.core.policy",
    "pasur_env.record": "pasur_env.pasur.record",
    "pasur_env.render": "pasur_env.pasur.render",
    "pasur_env.rewards": "pasur_env.pasur.rewards",
    "pasur_env.rules": "pasur_env.pasur.rules",
    "pasur_env.score_sheet": "pasur_env.pasur.score_sheet",
    "pasur_env.single_agent": "pasur_env.pasur.single_agent",
    "pasur_env.symmetry": "pasur_env.pasur.symmetry",
    "pasur_env.vector_env": "pasur_env.pasur.vector_env",
    "train.callbacks": "train.sb3.callbacks",
    "train.net_data": "train.move_net.data",
    "train.net_fit": "train.move_net.fit",
    "train.plots": "train.common.plots",
    "train.pool": "train.common.pool",
    "train.rllib_env": "train.rllib.env",
    "train.rummy_bc": "train.bc.rummy",
    "train.run_dir": "train.common.run_dir",
    "train.wrappers": "train.sb3.wrappers",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()), ids=sorted(MOVED))
def test_a_moved_module_has_only_its_new_name(old: str, new: str) -> None:
    """No import hook answers to an old name: it fails as any unknown module does, and the
    new name is the module."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
    try:
        module = importlib.import_module(new)
    except ImportError as err:  # the RLlib modules need the Ray venv, the vector env SB3
        missing = getattr(err, "name", None) or ""
        if missing.split(".")[0] in ("ray", "stable_baselines3", "sb3_contrib", "torch"):
            pytest.skip(f"{missing} is not installed (an optional extra)")
        raise
    assert module.__name__ == new


def test_no_import_hook_is_installed() -> None:
    import sys

    assert not any(type(f).__name__ == "ModuleAliases" for f in sys.meta_path)
    for package in (pasur_env, agents):
        assert not hasattr(package, "MOVED_MODULES")


def test_a_pickle_naming_an_old_path_fails_clearly() -> None:
    with pytest.raises(ModuleNotFoundError, match="pasur_env.rules"):
        pickle.loads(b"cpasur_env.rules\nRules\n.")  # the old module path, protocol 0
    engine = pasur_env.Engine(2, seed=0)
    assert np.array_equal(pickle.loads(pickle.dumps(engine)).state, engine.state)


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
