"""Persian Rummy's move-scoring network: candidate features, the ``net`` agent, the
labeller (the rollout agent's candidate values), the pipeline end to end at tiny size
(run, resume, load), a network of another layout refused, and the shared opponent pool
in the Rummy vector env."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.pasur.move_net import MoveNet  # noqa: E402
from agents.registry import build_agent  # noqa: E402
from agents.rummy.move_net import RummyMoveNet, RummyNetAgent  # noqa: E402
from agents.rummy.move_net.features import MOVE_WIDTH, candidate_features  # noqa: E402
from agents.rummy.rollout import RummyRolloutAgent, candidate_actions  # noqa: E402
from pasur_env import GameView  # noqa: E402
from pasur_env.core.loop import play  # noqa: E402
from pasur_env.rummy import kernels as K  # noqa: E402
from pasur_env.rummy.engine import RummyEngine  # noqa: E402
from pasur_env.rummy.observation import OBS_SIZE  # noqa: E402


def tiny_net(seed: int = 0) -> RummyMoveNet:
    return RummyMoveNet.init(OBS_SIZE, 16, 8, seed=seed, num_players=4)


def positions(n: int = 32, steps: int = 40, seed: int = 3) -> RummyEngine:
    """Games some decisions in, played by greedy."""
    eng = RummyEngine(n, seed=seed, episode="round", auto_reset=False)
    greedy = make_agent("greedy", game="persian_rummy")
    for _ in range(steps):
        live = np.flatnonzero(~eng.done)
        if not live.size:
            break
        view = GameView(eng, live)
        eng.step(greedy.act(None, eng.legal_mask()[live], view), live)
    return eng


def test_candidates_are_legal_and_described() -> None:
    eng = positions()
    games = np.flatnonzero(~eng.done)
    mask = eng.legal_mask()[games]
    offsets, actions, greedy = candidate_actions(eng, games, mask)
    assert (actions[offsets[:-1]] == greedy).all()  # greedy's action first
    feats = candidate_features(eng, games, offsets, actions, greedy)
    assert feats.shape == (len(actions), MOVE_WIDTH) and np.isfinite(feats).all()
    for i in range(len(games)):
        rows = np.arange(offsets[i], offsets[i + 1])
        assert mask[i, actions[rows]].all()
        assert feats[rows, :6].sum(axis=1).tolist() == [1.0] * len(rows)  # one kind each
        assert feats[rows[0], 6] == 1.0  # greedy's flag
    assert (np.diff(offsets) > 1).any()  # some decisions offer a choice


def test_rollout_values_every_candidate_and_plays_the_best() -> None:
    eng = positions(seed=5)
    games = np.flatnonzero(~eng.done)
    mask = eng.legal_mask()[games]
    a, b = RummyRolloutAgent(samples=2, seed=7), RummyRolloutAgent(samples=2, seed=7)
    offsets, actions, values = a.candidate_values(eng, games, mask)
    acts = b.act(None, mask, GameView(eng, games))
    for i in range(len(games)):
        lo, hi = offsets[i], offsets[i + 1]
        assert acts[i] == actions[lo + int(np.argmax(values[lo:hi]))]


def test_net_agent_plays_legally_and_refuses_another_layout(tmp_path) -> None:
    net = tiny_net()
    eng = RummyEngine(6, seed=1, episode="round", auto_reset=False)
    play(eng, [RummyNetAgent(model=net)], np.zeros((6, 4), dtype=np.int64))  # checks actions
    assert eng.done.all()
    path = net.save(tmp_path / "r.npz")
    agent = make_agent(str(path), game="persian_rummy")  # the .npz loader
    assert isinstance(agent, RummyNetAgent) and agent.model.meta["game"] == "persian_rummy"
    pasur = MoveNet.init(957, 16, 8, num_players=4).save(tmp_path / "pasur.npz")
    with pytest.raises(ValueError, match="trained for the game 'pasur', not 'persian_rummy'"):
        make_agent(str(pasur), game="persian_rummy")
    with pytest.raises(ValueError, match="trained for the game 'persian_rummy', not 'pasur'"):
        MoveNet.load(path).check(OBS_SIZE, 4)
    bad = tiny_net()
    bad.params["w_move"] = np.zeros((MOVE_WIDTH + 3, 16), dtype=np.float32)
    with pytest.raises(ValueError, match=f"move rows of {MOVE_WIDTH + 3} features"):
        RummyNetAgent(model=bad)
    eng = RummyEngine(2, seed=0)
    obs = eng.observe(np.arange(2), eng.current_player)
    with pytest.raises(ValueError, match="expects observations of"):
        RummyNetAgent(model=tiny_net()).act(obs[:, :-1], eng.legal_mask(), GameView.all(eng))


def test_a_temperature_draws_candidates_from_the_probabilities_it_says() -> None:
    """``net:temperature=T`` in Persian Rummy: ``action_probs`` is a policy of the legal
    actions (one-hot on ``act``'s choice at T=0) and ``act``'s frequencies follow it."""
    eng = positions(48)
    live = np.flatnonzero(~eng.done)
    view, mask = GameView(eng, live), eng.legal_mask()[live]
    obs = eng.observe(live)
    net = tiny_net()
    net.params["w_q"] *= 20.0
    cold = RummyNetAgent(model=net)
    np.testing.assert_array_equal(cold.action_probs(obs, mask, view).argmax(1),
                                  cold.act(obs, mask, view))
    assert build_agent("net:temperature=0.5", game="persian_rummy").temperature == 0.5
    warm = RummyNetAgent(model=net, temperature=1.0, seed=0)
    p = warm.action_probs(obs, mask, view)
    assert (p[~mask] == 0).all() and np.allclose(p.sum(1), 1.0) and (p.max(1) < 1).any()
    counts = np.zeros_like(p)
    for _ in range(1000):
        counts[np.arange(live.size), warm.act(obs, mask, view)] += 1
    assert np.abs(counts / 1000 - p).max() < 0.06
    with pytest.raises(ValueError, match="temperature must be a number >= 0"):
        build_agent("net:temperature=-2", game="persian_rummy")


def test_the_shipped_network_loads_by_name_and_plays_whole_rounds() -> None:
    agent = make_agent("net", game="persian_rummy")
    assert isinstance(agent, RummyNetAgent)
    meta, params = agent.model.meta, agent.model.params
    assert meta["game"] == "persian_rummy" and meta["num_players"] == 4
    assert params["b1"].shape == (512,) and "--refit" in meta["made_by"]  # as documented
    eng = RummyEngine(8, seed=3, episode="round", auto_reset=False)
    play(eng, [agent], np.zeros((8, 4), dtype=np.int64))
    assert eng.done.all()


def test_pipeline_runs_resumes_and_loads(tmp_path, capsys) -> None:
    from test_net import report_states_the_data_on_disk

    from train.move_net import pipeline as train_net

    args = ["--config", "rummy-tiny", "--name", "t", "--out", str(tmp_path),
            "--iterations", "1"]
    run = train_net.main(args)
    report_states_the_data_on_disk(run, capsys)
    for name in ("net.npz", "report.md", "final_eval.json", "evals.csv", "checkpoint.json"):
        assert (run / name).exists(), name
    assert json.loads((run / "checkpoint.json").read_text())["iteration"] == 1
    train_net.main(args[:-1] + ["2", "--resume"])  # a second iteration on top of the first
    state = json.loads((run / "checkpoint.json").read_text())
    assert state["iteration"] == 2 and len(state["history"]) == 2
    net = RummyMoveNet.load(run / "net.npz")
    assert net.meta["game"] == "persian_rummy" and net.meta["iterations"] == 2
    agent = make_agent(str(run / "net.npz"), game="persian_rummy")
    eng = RummyEngine(4, seed=9, episode="round", auto_reset=False)
    play(eng, [agent], np.zeros((4, 4), dtype=np.int64))
    final = json.loads((run / "final_eval.json").read_text())
    assert {r["b"] for r in final} == {"random", "greedy"}
    assert "Persian Rummy move-scoring network" in (run / "report.md").read_text()
    with pytest.raises(SystemExit):  # Persian Rummy is a 4-player game
        train_net.parse_args(["--game", "persian_rummy", "--players", "2"])
    assert train_net.parse_args(["--game", "persian_rummy"]).players == 4  # its own config


def test_refit_fits_a_new_network_on_the_runs_labels(tmp_path, capsys) -> None:
    """``--refit``: a wider network fitted from scratch (with the suit relabelling) on
    the labels of a finished run; no new labels, the data files untouched."""
    from train.move_net import pipeline as train_net

    args = ["--config", "rummy-tiny", "--name", "t", "--out", str(tmp_path),
            "--iterations", "1", "--no-augment"]
    run = train_net.main(args)
    data = run / "data" / "iteration_1.npz"
    stamp = data.stat().st_mtime_ns
    train_net.main(args[:-1] + ["--resume", "--refit", "--hidden", "48", "--augment"])
    net = RummyMoveNet.load(run / "net.npz")
    assert net.params["b1"].shape == (48,) and net.meta["iterations"] == 1
    state = json.loads((run / "checkpoint.json").read_text())
    assert [h["iteration"] for h in state["history"]] == [
        1, "refit: hidden 48, 1 epochs, augmented"]
    assert data.stat().st_mtime_ns == stamp and len(list((run / "data").iterdir())) == 1
    assert "the last refit (hidden 48" in (run / "report.md").read_text()
    with pytest.raises(SystemExit):
        train_net.main(["--config", "rummy-tiny", "--out", str(tmp_path), "--refit"])
    assert "give --resume" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no labelled data"):
        train_net.main(["--config", "rummy-tiny", "--out", str(tmp_path), "--resume",
                        "--refit", "--name", "none"])


def test_opponent_pool_in_the_rummy_vector_env() -> None:
    pytest.importorskip("stable_baselines3")
    from pasur_env.rummy.vector_env import PersianRummyVecEnv
    from train.common.pool import OpponentPool

    pool = OpponentPool(["greedy", ("r", "random", 3.0)], sampling="weights", seed=0,
                        game="persian_rummy")
    vec = PersianRummyVecEnv(16, opponent=pool, partner=make_agent("greedy",
                                                                   game="persian_rummy"), seed=0)
    vec.reset()
    names0 = vec.get_attr("opponent_name")
    assert set(names0) == {"greedy", "r"}
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        masks = vec.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, done, _ = vec.step(acts)
        ended += int(done.sum())
    assert sum(e.games for e in pool) == ended > 0  # the pool heard every result
    assert vec.get_attr("opponent_name") != names0  # drawn anew as games reset
    games = vec.games
    for g in range(16):  # partner opposite the learner, the drawn opponent at the others
        seat = games.seat[g]
        assert games.seat_policy[g, (seat + 2) % 4] == 0
        others = games.seat_policy[g, [(seat + 1) % 4, (seat + 3) % 4]]
        assert others[0] == others[1] and games._policies[others[0]] is pool.get(
            int(games.entry_id[g])).policy
    assert K.NUM_ACTIONS == masks.shape[1]


def test_rummy_ppo_trains_against_a_pool_with_snapshots(tmp_path, monkeypatch) -> None:
    pytest.importorskip("sb3_contrib")
    from train import ppo

    made = []
    monkeypatch.setattr(ppo, "make_pool", lambda a, f=ppo.make_pool: made.append(f(a)) or made[-1])

    rummy = ["--game", "persian_rummy", "--config", "tiny"]
    args = ppo.parse_args([*rummy, "--opponent", "greedy:1>0.5,self:0>1"])
    assert ppo.opponent_schedule(args) == {"greedy": (1.0, 0.5), "self": (0.0, 1.0)}
    pool = ppo.make_pool(args)
    assert pool.names == ["greedy"] and pool.game == "persian_rummy"
    run = ppo.main([*rummy, "--name", "p", "--out", str(tmp_path),
                    "--opponent", "greedy:1>0.5,self:0>1", "--bc-rounds", "0"])
    assert (run / "model.zip").exists() and (run / "final_eval.json").exists()
    assert any(n.startswith("self@") for n in made[-1].names)  # snapshots joined the pool
    assert sum(e.games for e in made[-1]) > 0  # and the pool heard the results


@pytest.mark.parametrize("search", ["rollout", "ismcts"])
def test_labeller_records_every_candidates_value(search) -> None:
    from train.move_net.data import generate
    from train.move_net.rummy import RummyLabeler

    labeler = RummyLabeler(8, seed=0, search=search)
    data = generate(labeler, 30, num_players=4, seed=2, opponents={"greedy": 1.0}, batch=4,
                    game="persian_rummy")
    assert len(data) >= 30 and data.feats.shape == (data.offsets[-1], MOVE_WIDTH)
    assert (np.diff(data.offsets) > 1).all() and np.isfinite(data.values).all()
    assert data.obs.shape[1] == OBS_SIZE
    with pytest.raises(ValueError, match="not 'mcts'"):
        RummyLabeler(8, seed=0, search="mcts")


def test_the_network_among_the_labellers_opponents_runs_on_one_blas_thread() -> None:
    """The network's small matrix products during labelling run on one BLAS thread, whatever
    the caller's pool: on a thread pool the BLAS threads spun on the cores the rollouts
    needed, and Persian Rummy's labelling ran three times slower once the network played
    (``benchmarks/bench_labelling.py``). The caller's limit is back afterwards."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from train.move_net.data import generate
    from train.move_net.rummy import RummyLabeler

    def blas_threads() -> list[int]:
        return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]

    class Watched(RummyNetAgent):
        seen: list[list[int]] = []

        def act(self, obs, mask, view):  # noqa: ANN001, ANN202
            self.seen.append(blas_threads())
            return super().act(obs, mask, view)

    with threadpool_limits(limits=2, user_api="blas"):
        data = generate(RummyLabeler(2, seed=0), 1, num_players=4, seed=3,
                        opponents={"net": 1.0}, batch=4,
                        policies={"net": Watched(model=tiny_net())}, game="persian_rummy")
        assert blas_threads() and all(n == 2 for n in blas_threads())
    assert len(data) and Watched.seen and all(n == [1] * len(n) for n in Watched.seen)


@pytest.mark.parametrize("game", ["persian_rummy", "mini"])
def test_sharded_labelling_serves_both_games_and_the_variants(game) -> None:
    """``train.move_net --address``'s shards (:mod:`train.move_net.distributed`, here without
    Ray) label the run's game: shard 0 is the first batch of the local labelling of
    Persian Rummy, or of Pasur's ``mini`` variant, and the shards give the same data
    with 1 and 3 workers; a shard travels compressed."""
    from train.move_net.data import Dataset, SearchLabeler, generate
    from train.move_net.distributed import (
        LabelJob,
        LocalTasks,
        label_shard,
        label_sharded,
        packed_shard,
    )
    from train.move_net.rummy import RummyLabeler

    mix = {"greedy": 1.0}
    if game == "persian_rummy":
        job = LabelJob(77, 4, 2, 0.05, None, 2, 4, mix, game="persian_rummy")
        labeler = RummyLabeler(2, seed=77, explore=0.05)
        local = generate(labeler, 1, num_players=4, seed=77, opponents=mix, batch=4,
                         game="persian_rummy")
    else:
        job = LabelJob(77, 2, 8, 0.05, None, 2, 4, mix, preset="mini")
        # the pipeline's labeller: a round of mini has two deals, so the rollouts' exact
        # last deal (--label-exact-leaves auto) is on, as is the exact last deal itself
        labeler = SearchLabeler(8, seed=77, explore=0.05, plies=None, horizon=2,
                                endgame=True, exact_leaves=True)
        local = generate(labeler, 1, num_players=2, seed=77, opponents=mix, batch=4,
                         preset="mini")
        full = generate(SearchLabeler(8, seed=77, explore=0.05, plies=None, horizon=2), 1,
                        num_players=2, seed=77, opponents=mix, batch=4)
        assert not np.array_equal(full.states[:1], local.states[:1])  # the variant's deals
    first = label_shard(job, 0)
    fields = ("obs", "offsets", "feats", "values", "states")
    assert len(first) == len(local) > 0
    assert all(np.array_equal(getattr(first, f), getattr(local, f)) for f in fields)
    packed = packed_shard(job, 0)  # what a shard's task sends back: compressed
    assert isinstance(packed, bytes) and len(packed) < first.nbytes / 5
    back = Dataset.from_bytes(packed)
    assert all(np.array_equal(getattr(back, f), getattr(first, f)) for f in fields)
    one = label_sharded(job, 3 * len(first), LocalTasks(), 1)
    three = label_sharded(job, 3 * len(first), LocalTasks(), 3)
    assert all(np.array_equal(getattr(one, f), getattr(three, f)) for f in fields)
