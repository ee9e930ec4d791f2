"""The move-scoring network: features, the numpy model, the ``net`` and ``net-ismcts``
agents, and the training pipeline end to end at tiny sizes (P = 2, 3, 4)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.pasur.move_net import MoveNet, NetAgent  # noqa: E402
from agents.pasur.move_net import agent as net_agent  # noqa: E402
from agents.pasur.move_net.features import MOVE_WIDTH, candidate_moves  # noqa: E402
from agents.pasur.move_net.search import NetSearchAgent, top_k_mask, value_gaps  # noqa: E402
from pasur_env import Engine, GameView  # noqa: E402
from pasur_env.core.loop import play  # noqa: E402
from pasur_env.pasur import kernels as K  # noqa: E402
from pasur_env.pasur.moves import move_options
from pasur_env.pasur.observation import encode, observation_size  # noqa: E402
from pasur_env.pasur.rules import make_rules  # noqa: E402


def tiny_net(players: int, seed: int = 0) -> MoveNet:
    obs = observation_size(make_rules(num_players=players))
    return MoveNet.init(obs, 16, 8, seed=seed, num_players=players)


def test_candidate_moves_match_the_engine() -> None:
    eng = Engine(64, seed=3, episode="round")
    eng.playout(17, seed=1)  # some games in the CAPTURE phase
    games = np.arange(64)
    offsets, cards, capts, feats = candidate_moves(eng, games)
    assert feats.shape == (offsets[-1], MOVE_WIDTH) and np.isfinite(feats).all()
    for g in range(64):
        rows = range(offsets[g], offsets[g + 1])
        if eng.phase[g] == K.PLAY:
            want = sorted((c, sum(1 << t for t in cap)) for c, cap in move_options(eng, g))
            assert sorted((int(cards[r]), int(capts[r])) for r in rows) == want
        assert len(rows) >= 1
        assert all(feats[r, int(cards[r])] == 1.0 for r in rows)  # the played card


def test_network_agents_act_legally_for_every_player_count() -> None:
    for players in (2, 3, 4):
        net = tiny_net(players)
        for agent in (NetAgent(model=net), NetSearchAgent(model=net, budget=8, seed=0)):
            eng = Engine(6, seed=players, episode="round", auto_reset=False,
                         num_players=players)
            play(eng, [agent], np.zeros((6, players), dtype=np.int64))  # checks every action
            assert (eng.phase == K.DONE).all()


def test_a_network_refuses_another_game(tmp_path) -> None:
    path = tiny_net(2).save(tmp_path / "two.npz")
    agent = make_agent(str(path))  # the .npz loader
    eng = Engine(2, seed=0, num_players=3)
    obs = encode(eng)
    with pytest.raises(ValueError, match="trained for 2 players, the game has 3"):
        agent.act(obs, eng.legal_mask(), GameView.all(eng))
    bad = tiny_net(2)
    bad.params["w_obs"] = np.zeros((700, 16), dtype=np.float32)
    eng2 = Engine(2, seed=0)
    with pytest.raises(ValueError, match="expects observations of 700 features"):
        NetAgent(model=bad).act(encode(eng2), eng2.legal_mask(), GameView.all(eng2))
    with pytest.raises(ValueError, match="not a move network"):
        np.savez(tmp_path / "junk.npz", x=np.zeros(3))
        MoveNet.load(tmp_path / "junk.npz")


def test_no_shipped_network_is_a_clear_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(net_agent, "PRETRAINED", tmp_path)  # a trimmed install
    eng = Engine(2, seed=0, num_players=4)
    with pytest.raises(ValueError, match=r"no network for 4 players \(net_4p.*\.npz\)"):
        NetAgent().act(encode(eng), eng.legal_mask(), GameView.all(eng))
    assert NetAgent().player_counts == ()
    with pytest.raises(ValueError, match="no network for 4 players; train one"):
        NetAgent(files={3: tmp_path / "mine.npz"}).act(encode(eng), eng.legal_mask(),
                                                       GameView.all(eng))


def test_a_temperature_draws_moves_from_the_probabilities_it_says() -> None:
    """``temperature=T`` plays a softmax of the values: ``action_probs`` is a policy of
    the legal actions (one-hot on ``act``'s choice at T=0) and ``act``'s frequencies
    converge to it, in the PLAY and the CAPTURE phase; a bad temperature is refused."""
    net = tiny_net(2)
    net.params["w_q"] *= 20.0
    eng = Engine(24, seed=5, episode="round")
    eng.playout(9, seed=2)
    games = np.arange(24)
    view, mask, obs = GameView(eng, games), eng.legal_mask(games), encode(eng)
    cold = NetAgent(model=net).action_probs(obs, mask, view)
    np.testing.assert_array_equal(cold.argmax(1), NetAgent(model=net).act(obs, mask, view))
    assert (cold.max(1) == 1.0).all()
    warm = NetAgent(model=net, temperature=1.0, seed=0)
    p = warm.action_probs(obs, mask, view)
    assert (p[~mask] == 0).all() and np.allclose(p.sum(1), 1.0)
    assert (p.max(1) < 1.0).any() and eng.phase[:24].tolist().count(K.CAPTURE) >= 1
    counts = np.zeros_like(p)
    for _ in range(1000):
        counts[games, warm.act(obs, mask, view)] += 1
    assert np.abs(counts / 1000 - p).max() < 0.06
    same = [NetAgent(model=net, temperature=1.0, seed=3).act(obs, mask, view) for _ in "ab"]
    np.testing.assert_array_equal(*same)  # seeded draws repeat
    for bad in (-1.0, float("nan"), "hot"):
        with pytest.raises(ValueError, match="temperature must be a number >= 0"):
            NetAgent(model=net, temperature=bad)


def test_top_k_mask() -> None:
    q = np.array([1.0, 3.0, 2.0, 5.0, 0.0, 0.0])
    offsets = np.array([0, 3, 4, 6])
    assert top_k_mask(q, offsets, 2).tolist() == [False, True, True, True, True, True]
    assert value_gaps(q, offsets).tolist() == [1.0, np.inf, 0.0]


def test_net_ismcts_plays_the_networks_move_when_it_is_clear() -> None:
    net = tiny_net(2, seed=4)
    eng = Engine(32, seed=6, episode="round")
    eng.playout(5, seed=3)
    obs, mask, view = encode(eng), eng.legal_mask(), GameView.all(eng)
    plain = NetAgent(model=net).act(obs, mask, view)
    assert (NetSearchAgent(model=net, clear_gap=0.0, budget=8, seed=0).act(obs, mask, view)
            == plain).all()  # every decision with two moves valued apart is clear
    offsets, _, _, q = NetAgent(model=net).scores(obs, view)
    close = value_gaps(q, offsets) <= 0.05
    searched = NetSearchAgent(model=net, clear_gap=0.05, budget=64, prior_weight=0.0,
                              seed=0).act(obs, mask, view)
    assert (searched[~close] == plain[~close]).all()
    assert (searched[close] != plain[close]).any()  # the search overrules the network
    with pytest.raises(ValueError, match="clear_gap"):
        NetSearchAgent(model=net, clear_gap=-1.0)
    for bad in ({"infer_beta": -1.0}, {"infer_floor": 1.5}, {"infer_floor": -0.1},
                {"top_k": 0}, {"prior_weight": 2.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            NetSearchAgent(model=net, **bad)


@pytest.mark.parametrize("horizon", [0, 2])
def test_labeler_records_the_search_values_of_its_horizon(horizon) -> None:
    from agents.pasur.ismcts import WHOLE_ROLLOUT, search_values
    from train.move_net.data import SearchLabeler

    eng = Engine(8, seed=5, episode="round", auto_reset=False)
    eng.playout(9, seed=2)
    games = np.arange(8)
    offsets = candidate_moves(eng, games)[0]
    seeds = np.random.default_rng(7).integers(0, 2**63 - 1, size=8, dtype=np.int64)
    want = search_values(eng, games, offsets, seeds, budget=24, plies=WHOLE_ROLLOUT,
                         horizon=horizon)
    other = search_values(eng, games, offsets, seeds, budget=24, plies=WHOLE_ROLLOUT,
                          horizon=2 - horizon)
    labeler = SearchLabeler(24, seed=7, plies=None, horizon=horizon)
    labeler.act(encode(eng), eng.legal_mask(), GameView.all(eng))
    data = labeler.take()
    searched = np.flatnonzero(np.diff(offsets) > 1)  # forced decisions are not recorded
    rows = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in searched])
    assert len(data) == searched.size
    np.testing.assert_array_equal(data.values, want[rows].astype(np.float32))
    assert not np.array_equal(want[rows], other[rows])  # the horizon changes the labels


def _positions_with_nothing_hidden(n: int) -> Engine:
    """An engine of ``n`` 2-player Ru Baaz games at PLAY decisions whose mover can see
    every card (the stock dealt out, the other hand down to its face-up card)."""
    src = Engine(256, seed=11, episode="round", auto_reset=False, open_hand=True)
    rows = []
    for step in range(200):
        st = src.state
        for b in range(st.shape[0]):
            if (st[b, K.PHASE] == K.PLAY and st[b, K.STOCK_POS] == 52
                    and K.hidden_from(st, b, int(st[b, K.MOVER]), True) == 0):
                rows.append(st[b].copy())
        if len(rows) >= n:
            break
        src.playout(1, seed=step)
    eng = Engine(n, seed=0, episode="round", auto_reset=False, open_hand=True)
    eng.state[:] = np.array(rows[:n])
    return eng


@pytest.mark.parametrize("horizon", [0, 2])
def test_oracle_values_are_the_search_values_when_nothing_is_hidden(horizon) -> None:
    """With every card in sight, each determinization of the search is the true position,
    so the oracle's one rollout per move gives exactly the search's mean."""
    from agents.pasur.ismcts import WHOLE_ROLLOUT, oracle_values, search_values

    eng = _positions_with_nothing_hidden(24)
    games = np.arange(24)
    offsets = candidate_moves(eng, games)[0]
    assert (np.diff(offsets) > 1).sum() >= 12
    seeds = np.random.default_rng(3).integers(0, 2**63 - 1, size=24, dtype=np.int64)
    searched = search_values(eng, games, offsets, seeds, budget=40, plies=WHOLE_ROLLOUT,
                             horizon=horizon)
    oracle = oracle_values(eng, games, offsets, plies=WHOLE_ROLLOUT, horizon=horizon)
    np.testing.assert_allclose(oracle, searched, atol=1e-9)
    assert np.ptp(oracle) > 0


def test_oracle_labeler_records_true_position_values_and_plays_the_heuristic() -> None:
    """In the full game the oracle's labels differ from the search's (the hidden cards
    as they lie, not re-dealt), and without exploration the labeller plays exactly the
    heuristic's actions."""
    from agents.pasur.ismcts import WHOLE_ROLLOUT, oracle_values, search_values
    from train.move_net.data import SearchLabeler

    eng = Engine(16, seed=5, episode="round", auto_reset=False)
    eng.playout(9, seed=2)
    games = np.arange(16)
    offsets = candidate_moves(eng, games)[0]
    want = oracle_values(eng, games, offsets, plies=WHOLE_ROLLOUT, horizon=2)
    seeds = np.random.default_rng(7).integers(0, 2**63 - 1, size=16, dtype=np.int64)
    searched = search_values(eng, games, offsets, seeds, budget=40, plies=WHOLE_ROLLOUT,
                             horizon=2)
    labeler = SearchLabeler(40, seed=7, plies=None, horizon=2, oracle=True)
    obs, mask, view = encode(eng), eng.legal_mask(), GameView.all(eng)
    actions = labeler.act(obs, mask, view)
    heuristic = make_agent("heuristic", game="pasur", seed=0).act(obs, mask, view)
    np.testing.assert_array_equal(actions, heuristic)
    data = labeler.take()
    multi = np.flatnonzero(np.diff(offsets) > 1)
    rows = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in multi])
    np.testing.assert_array_equal(data.values, want[rows].astype(np.float32))
    assert not np.allclose(want[rows], searched[rows])


def test_saved_labels_are_compressed_round_trip_and_old_files_load(tmp_path) -> None:
    """A labelled dataset is saved compressed (far below its arrays' bytes), reads back
    to the last bit, and a file written uncompressed (runs made before) still loads."""
    from train.move_net.data import Dataset, SearchLabeler, generate

    data = generate(SearchLabeler(8, seed=3, explore=0.05, plies=None, horizon=2), 200,
                    num_players=2, seed=3, opponents={"self": 1.0, "greedy": 1.0}, batch=8)
    assert len(data) >= 200
    fields = ("obs", "offsets", "feats", "values", "states")
    arrays = sum(getattr(data, f).nbytes for f in fields)

    def same(a: Dataset, b: Dataset) -> bool:
        return all(getattr(a, f).dtype == getattr(b, f).dtype
                   and np.array_equal(getattr(a, f), getattr(b, f)) for f in fields)

    data.save(tmp_path / "new.npz")
    assert same(Dataset.load(tmp_path / "new.npz"), data)
    assert (tmp_path / "new.npz").stat().st_size < arrays / 5
    np.savez(tmp_path / "old.npz", **{f: getattr(data, f) for f in fields})  # as before
    assert (tmp_path / "old.npz").stat().st_size > arrays
    assert same(Dataset.load(tmp_path / "old.npz"), data)
    assert data.nbytes == arrays and same(Dataset.from_bytes(data.to_bytes()), data)


def test_concat_keeps_every_decision_and_release_frees_the_parts() -> None:
    """Datasets joined hold every decision with its own move rows; one part is the part
    itself (a one-iteration run fits its data without a copy); ``release`` leaves the
    parts empty, owning no memory, as the labeller's ``take`` does."""
    from train.move_net.data import FIELDS, Dataset

    def part(n: int, rows: int, k: int) -> Dataset:
        offsets = np.linspace(0, rows, n + 1).astype(np.int64)
        return Dataset(np.full((n, 3), k, np.float16), offsets,
                       np.full((rows, 2), k, np.float16), np.arange(rows, dtype=np.float32) + k,
                       np.full((n, 4), k, np.int64))

    parts = [part(2, 6, 1), part(0, 0, 9), part(3, 9, 2)]
    whole = Dataset.concat(parts)
    assert len(whole) == 5 and whole.offsets.tolist() == [0, 3, 6, 9, 12, 15]
    assert whole.obs[:, 0].tolist() == [1, 1, 2, 2, 2]
    np.testing.assert_array_equal(whole.values[6:], parts[2].values)
    assert Dataset.concat([parts[1], parts[2]]) is parts[2]
    again = Dataset.concat(parts, release=True)
    assert all(np.array_equal(getattr(again, f), getattr(whole, f)) for f in FIELDS)
    for p in (parts[0], parts[2]):
        assert len(p) == 0 and all(getattr(p, f).base is None for f in FIELDS if f != "offsets")
    with pytest.raises(ValueError, match="no labelled decisions"):
        Dataset.concat([parts[1]])


def report_states_the_data_on_disk(run, capsys) -> None:
    """The report and the run's last lines state the disk its labelled data takes."""
    from train.move_net.data import Dataset, size_text

    files = sorted((run / "data").iterdir())
    on_disk = sum(p.stat().st_size for p in files)
    in_memory = sum(Dataset.load(p).nbytes for p in files)
    assert files and on_disk < in_memory / 5  # compressed
    line = f"Labelled data: {size_text(on_disk)} on disk in `data/`"
    assert line in (run / "report.md").read_text()
    assert line in capsys.readouterr().out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pipeline_runs_resumes_and_ships(tmp_path, capsys, players) -> None:
    from train.move_net import pipeline as train_net

    args = ["--config", "tiny", "--name", "t", "--out", str(tmp_path), "--players",
            str(players), "--iterations", "1"]
    run = train_net.main(args)
    report_states_the_data_on_disk(run, capsys)
    for name in ("net.npz", "report.md", "final_eval.json", "evals.csv", "checkpoint.json"):
        assert (run / name).exists(), name
    first = json.loads((run / "checkpoint.json").read_text())
    assert first["iteration"] == 1
    train_net.main(args[:-1] + ["2", "--resume"])  # a second iteration on top of the first
    state = json.loads((run / "checkpoint.json").read_text())
    assert state["iteration"] == 2 and len(state["history"]) == 2
    horizon = json.loads((run / "config.json").read_text())["label_horizon"]
    assert MoveNet.load(run / "net.npz").meta["label_horizon"] == horizon
    agent = make_agent(str(run / "net.npz"))
    assert agent.name == "net"
    eng = Engine(4, seed=9, episode="round", auto_reset=False, num_players=players)
    play(eng, [agent], np.zeros((4, players), dtype=np.int64))
    final = json.loads((run / "final_eval.json").read_text())
    assert {r["b"] for r in final} == {"random", "greedy"}
    assert "net − opponent" in (run / "report.md").read_text()


def test_pipeline_trains_on_a_small_variant(tmp_path) -> None:
    """``--preset mini``: the labelling games and every evaluation are the variant's
    (8 decisions a round: 2 players, 2 deals of 2 cards)."""
    from train.move_net import pipeline as train_net

    run = train_net.main(["--config", "tiny", "--name", "v", "--out", str(tmp_path),
                          "--iterations", "1", "--preset", "mini"])
    final = json.loads((run / "final_eval.json").read_text())
    assert final and all(r["decisions"] == 8 * r["rounds"] for r in final)
    assert all(r["rules"]["preset"] == "mini" for r in final)
    assert "preset `mini`" in (run / "report.md").read_text()
    # a 2-deal round: the rollouts from the first deal take the last deal's exact value
    assert "rollouts reaching the last deal take its exact value" in (
        run / "report.md").read_text()


def test_pipeline_labels_from_a_solved_policy(tmp_path) -> None:
    """``--label-search solved``: a CFR+ policy of ``mini`` plays and labels; a PLAY
    decision's labels are ``SOLVED_SCALE`` times the policy's probabilities of the
    moves' cards (summing to it where each card has one move), and the report says so."""
    from train import cfr as train_cfr
    from train.move_net import pipeline as train_net
    from train.move_net.data import SOLVED_SCALE, Dataset

    policy = train_cfr.main(["--config", "tiny", "--out", str(tmp_path), "--name", "c"])
    run = train_net.main(["--config", "tiny", "--name", "s", "--out", str(tmp_path),
                          "--iterations", "1", "--preset", "mini", "--label-search", "solved",
                          "--label-policy", str(policy)])
    data = Dataset.load(run / "data" / "iteration_1.npz")
    assert len(data) > 50
    assert (data.values >= 0).all() and (data.values <= SOLVED_SCALE + 1e-5).all()
    sums = np.add.reduceat(data.values.astype(np.float64), data.offsets[:-1])
    assert np.mean(np.isclose(sums, SOLVED_SCALE, atol=1e-3)) > 0.8
    assert "the solved policy" in (run / "report.md").read_text()


def test_exact_leaves_are_on_where_a_round_has_two_deals() -> None:
    """``--label-exact-leaves auto`` (the default): on for the 2-deal small variants, off
    for the full game and for more than 2 players; ``on``/``off`` decide alone."""
    from train.move_net.pasur import _exact_leaves
    from train.move_net.pipeline import parse_args

    def resolved(*argv: str) -> bool:
        return _exact_leaves(parse_args(list(argv)))

    assert resolved("--preset", "small") and resolved("--preset", "mini")
    assert not resolved() and not resolved("--players", "3")
    assert resolved("--label-exact-leaves", "on")
    assert not resolved("--preset", "small", "--label-exact-leaves", "off")


@pytest.mark.parametrize(("argv", "message"), [
    (["--preset", "nosuch"], "unknown preset"),
    (["--preset", "mini", "--players", "3"], "2-player game"),
    (["--label-exact-leaves", "yes"], "--label-exact-leaves must be auto, on, off"),
    (["--label-infer-beta", "-1"], "--label-infer-beta must be a non-negative number"),
    (["--label-infer-beta", "1", "--label-infer-floor", "2"], "--label-infer-floor must be"),
    (["--label-infer-beta", "1", "--players", "3"], "needs 2 players"),
    (["--label-infer-beta", "1", "--label-search", "oracle"], "--label-search rollout"),
    (["--config", "rummy-tiny", "--label-infer-beta", "1"], "has no opponent model"),
    (["--preset", "mini", "--label-search", "solved"], "--label-policy PATH go together"),
    (["--preset", "mini", "--label-search", "solved", "--label-policy", "nosuch.npz"],
     "no policy file"),
])
def test_pipeline_refuses_a_bad_preset(tmp_path, capsys, argv, message) -> None:
    from train.move_net import pipeline as train_net

    with pytest.raises(SystemExit):
        train_net.main(["--config", "tiny", "--out", str(tmp_path), *argv])
    assert message in capsys.readouterr().err


def test_the_labeller_reads_the_opponents_plays_with_label_infer_beta() -> None:
    """``--label-infer-beta``: the labeller's records fill with its opponents' plays (the
    rounds' opening plays included), its labels move away from those of uniform
    determinizations on the same games, and a Ray shard labels as the local run does."""
    from agents.pasur.inference import R_CARD
    from train.move_net.data import SearchLabeler, generate
    from train.move_net.distributed import LabelJob, label_shard

    def labelled(beta: float) -> tuple[SearchLabeler, object]:
        lab = SearchLabeler(16, seed=5, plies=None, horizon=1, endgame=True,
                            exact_leaves=True, infer_beta=beta)
        data = generate(lab, 1, num_players=2, seed=5, opponents={"heuristic": 1.0},
                        batch=8, preset="small")
        return lab, data

    lab, data = labelled(3.0)
    read = sum(int((r[:, R_CARD] >= 0).sum()) for r in lab.records._recs.values())
    assert read >= 4
    _, plain = labelled(0.0)
    assert np.array_equal(data.states[:1], plain.states[:1])  # the same first decision
    assert not np.array_equal(data.values, plain.values)
    job = LabelJob(5, 2, 16, 0.0, None, 1, 8, {"heuristic": 1.0}, preset="small",
                   label_infer_beta=3.0)
    shard = label_shard(job, 0)
    assert np.array_equal(shard.values, data.values)


def test_denormals_are_flushed_inside_the_block_and_not_after() -> None:
    """The fit's flag holds inside the (nested) blocks only: afterwards Python's floats
    have their subnormals again (hypothesis refuses to run without them)."""
    import sys

    from train.move_net.fit import denormals_flushed

    tiny = sys.float_info.min
    with denormals_flushed():
        with denormals_flushed():
            pass
        if tiny / 2 != 0.0:  # a platform without the flag (not x86 or arm64) flushes nothing
            return
        assert tiny / 2 == 0.0
    assert tiny / 2 > 0.0
