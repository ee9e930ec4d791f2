"""The exact solver of small variants (agents.pasur.solver) against brute force through
the engine; CFR+, exploitability, the CLI, train.cfr and the cfr:PATH agent."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from agents.apps.cli import main as cli_main
from agents.evaluation.exploitability import exploitability, variant_tree
from agents.evaluation.match import evaluate
from agents.pasur import solver as S
from agents.registry import build_agent
from pasur_env import Engine

#: tiny variants: one deal with choices; two deals (a later chance node, surs possible)
TINY_ONE_DEAL = {"cards": ("AC", "2C", "9D", "10D", "QH"), "hand_size": 2, "table_size": 1}
TINY_TWO_DEALS = {"cards": ("AC", "2C", "9D", "10D", "JS", "6H"), "hand_size": 1,
                  "table_size": 2}


def _engine(flags: dict) -> Engine:
    return Engine(1, seed=0, preset="mini", episode="round", auto_reset=False, **flags)


def _brute_force(flags: dict) -> list[tuple[Fraction, list[tuple[int, tuple, int, tuple]], int]]:
    """Every terminal history through the engine, one deck order at a time: (chance
    weight, decisions as (player, its observation key, action, legal actions), payoff)."""
    eng0 = _engine(flags)
    cards = eng0.rules.deck_cards
    t, h = eng0.rules.table_size, eng0.rules.hand_size
    orders = [p for p in itertools.permutations(cards)
              if not any(c // 4 == 10 for c in p[2 * h: 2 * h + t])]
    w = Fraction(1, len(orders))
    out = []
    for perm in orders:
        eng = _engine(flags)
        eng.reset(deck=list(perm))
        table = int(eng.table[0])
        keys = [(("cards", int(eng.hands[0, p])), ("table", table)) for p in range(2)]

        def walk(e: Engine, keys: list, path: list) -> None:
            if e.done[0]:
                return
            p, deal = e.mover(0), int(e.deal_index[0])
            legal = tuple(e.legal_actions(0))
            for a in legal:
                e2 = e.copy()
                info = e2.step(np.array([a]))
                k2 = [k + (("a", a),) for k in keys]
                if int(e2.deal_index[0]) != deal and not info.round_end[0]:
                    k2 = [k2[q] + (("cards", int(e2.hands[0, q])),) for q in range(2)]
                step = path + [(p, keys[p], a, legal)]
                if info.round_end[0]:
                    pts = info.round_points[0]
                    out.append((w, step, int(pts[0] - pts[1])))
                else:
                    walk(e2, k2, step)

        walk(eng, keys, [])
    return out


def _bf_value(paths: list, policy: dict, br: int | None) -> Fraction:
    """Player 0's value under ``policy`` (key -> action probabilities), or player
    ``br``'s best-response value: an independent recursion over its observation keys."""

    def weight(path: list, skip: int | None) -> Fraction:
        x = Fraction(1)
        for p, key, a, legal in path:
            if p != skip:
                x *= policy(key, a, legal)
        return x

    if br is None:
        return sum(w * weight(path, None) * pay for w, path, pay in paths)
    sign = 1 if br == 0 else -1

    def value(group: list, k: int) -> Fraction:
        total = Fraction(0)
        by_key: dict = {}
        for item in group:
            mine = [d for d in item[1] if d[0] == br]
            if len(mine) <= k:
                w, path, pay = item
                total += w * weight(path, br) * sign * pay
            else:
                by_key.setdefault(mine[k][1], []).append(item)
        for items in by_key.values():
            acts: dict = {}
            for item in items:
                a = [d for d in item[1] if d[0] == br][k][2]
                acts.setdefault(a, []).append(item)
            total += max(value(v, k + 1) for v in acts.values())
        return total

    return value(paths, 0)


def _bf_weight(path: list, policy) -> Fraction:
    x = Fraction(1)
    for _, key, a, legal in path:
        x *= policy(key, a, legal)
    return x


def _uniform(key: tuple, a: int, legal: tuple) -> Fraction:
    return Fraction(1, len(legal))


def _lowest(key: tuple, a: int, legal: tuple) -> Fraction:
    return Fraction(int(a == min(legal)))


@pytest.mark.parametrize("flags", [TINY_ONE_DEAL, TINY_TWO_DEALS])
def test_tree_matches_brute_force(flags: dict) -> None:
    tree = S.variant_tree(_engine(flags))
    paths = _brute_force(flags)
    sizes = tree.sizes()
    # information sets: the distinct observation keys at each player's decisions
    for p in (0, 1):
        keys = {d[1] for _, path, _ in paths for d in path if d[0] == p}
        assert sizes[f"infosets_p{p}"] == len(keys)
    # the deck orders, weighted equally, give each deal of sets its probability
    assert sum(w * _bf_weight(path, _uniform) for w, path, _ in paths) == 1
    lowest = np.zeros(tree.iset_actions.shape)
    lowest[tree.iset_first] = 1.0
    for pol, bf in ((S.uniform_policy(tree), _uniform), (lowest, _lowest)):
        assert S.expected_value(tree, pol) == pytest.approx(float(_bf_value(paths, bf, None)))
        for p in (0, 1):
            v, _ = S.best_response_value(tree, pol, p)
            assert v == pytest.approx(float(_bf_value(paths, bf, p)))


def test_states_replay_to_the_information_sets() -> None:
    eng = _engine(TINY_ONE_DEAL)
    tree = S.variant_tree(eng)
    rows = tree.states(tree.iset_node)
    view = eng.take(np.zeros(len(rows), dtype=np.int64))
    view.state[:] = rows
    mask = view.legal_mask()
    assert (view.current_player == tree.iset_player).all()
    for s in range(tree.num_infosets):
        a = tree.iset_first[s]
        assert np.flatnonzero(mask[s]).tolist() == tree.iset_actions[a: a + tree.iset_n[s]].tolist()


def test_cfr_plus_converges() -> None:
    tree = S.variant_tree(_engine(TINY_ONE_DEAL))
    random_nc = S.nash_conv(tree, S.uniform_policy(tree))["nash_conv"]
    solver = S.CFRPlus(tree)
    solver.run(300)
    nc = solver.nash_conv()
    assert nc["nash_conv"] >= -1e-9
    assert nc["nash_conv"] < 0.01 * random_nc
    assert nc["gain_p0"] >= -1e-9 and nc["gain_p1"] >= -1e-9


def test_solver_refuses_what_it_cannot_solve() -> None:
    with pytest.raises(ValueError, match="two-player"):
        S.variant_tree(Engine(1, preset="mini", episode="game"))
    with pytest.raises(ValueError, match="redeal"):
        S.variant_tree(Engine(1, preset="mini", episode="round", initial_jacks="bury"))
    tree = S.variant_tree(_engine(TINY_ONE_DEAL))
    with pytest.raises(ValueError, match="one probability"):
        S.nash_conv(tree, np.ones(3))


def test_exploitability_of_agents() -> None:
    res = exploitability("random", preset="mini", **TINY_ONE_DEAL)
    _, tree = variant_tree("mini", **TINY_ONE_DEAL)
    assert res.nash_conv == pytest.approx(S.nash_conv(tree, S.uniform_policy(tree))["nash_conv"])
    greedy = exploitability("greedy", preset="mini", **TINY_ONE_DEAL)
    assert greedy.nash_conv >= 0
    one = exploitability("greedy", preset="mini", seat=0, **TINY_ONE_DEAL)
    assert one.best_response[1] == pytest.approx(greedy.best_response[1])


class _ByCalls:
    """An agent's ``act`` alone: its policy is read by calling it (no ``action_probs``)."""

    def __init__(self, agent) -> None:  # noqa: ANN001
        self.agent, self.name, self.needs_observation = agent, agent.name, True

    def act(self, obs, mask, view):  # noqa: ANN001, ANN201
        return self.agent.act(obs, mask, view)

    def reset(self, seed=None) -> None:  # noqa: ANN001
        self.agent.reset(seed)


def test_an_agent_s_action_probabilities_are_read_exactly() -> None:
    """``net:temperature=T`` says its probabilities: at T=0 they are the one move it
    plays (the same NashConv as reading it by calls); at T>0 its calls' frequencies
    converge to them; probabilities that are not a policy of the legal actions are
    refused."""
    from agents.evaluation.exploitability import agent_policy
    from agents.pasur.move_net import MoveNet, NetAgent

    eng, tree = variant_tree("mini", **TINY_ONE_DEAL)
    net = MoveNet.init(eng.obs_size, 16, 8, seed=0, num_players=2)
    net.params["w_q"] *= 20.0  # values a few points apart, as a trained network's
    pure = exploitability(NetAgent(model=net), preset="mini", **TINY_ONE_DEAL)
    calls = exploitability(_ByCalls(NetAgent(model=net)), preset="mini", **TINY_ONE_DEAL)
    assert (pure.policy_read, calls.policy_read) == ("probabilities", "calls")
    assert pure.nash_conv == pytest.approx(calls.nash_conv, abs=1e-12)
    warm = NetAgent(model=net, temperature=1.0, seed=0)
    exact = agent_policy(tree, eng, warm)
    assert not np.isin(exact, (0.0, 1.0)).all()  # a mixed policy
    freq = agent_policy(tree, eng, _ByCalls(warm), samples=2000)
    assert np.abs(exact - freq).max() < 0.05
    mixed = exploitability(warm, preset="mini", **TINY_ONE_DEAL)
    assert mixed.nash_conv == pytest.approx(S.nash_conv(tree, exact)["nash_conv"])

    class Bad(NetAgent):
        def action_probs(self, obs, mask, view):  # noqa: ANN001, ANN201
            return np.where(mask, 1.0, 0.0)  # rows summing to the legal count

    with pytest.raises(ValueError, match="summing to 1"):
        exploitability(Bad(model=net), preset="mini", **TINY_ONE_DEAL)


def test_cli_exploitability_random_mini(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    out = tmp_path / "x.json"
    assert cli_main(["exploitability", "random", "--preset", "mini", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "NashConv" in text and "time:" in text
    data = json.loads(out.read_text())
    assert data["nash_conv"] > 0 and data["sizes"]["histories"] > 0


def test_train_cfr_resume_and_agent(tmp_path) -> None:
    from train import cfr as train_cfr

    args = ["--config", "tiny", "--out", str(tmp_path), "--name", "c", "--iterations", "10"]
    path = train_cfr.main(args)
    assert path.exists() and (tmp_path / "c" / "curve.png").exists()
    train_cfr.main(args[:-1] + ["20", "--resume"])
    rows = (tmp_path / "c" / "curve.csv").read_text().splitlines()
    assert len(rows) == 1 + 4  # header, iterations 5, 10, 15, 20
    with np.load(path) as f:
        assert int(f["iteration"]) == 20
    agent = build_agent(f"cfr:{path}", seed=0)
    res = evaluate(agent, "random", rounds=200, preset="mini", seed=0, progress=False)
    assert agent.unknown == 0 and res.rounds == 200
    ex = exploitability(agent, preset="mini")
    assert ex.nash_conv < exploitability("random", preset="mini").nash_conv
    with pytest.raises(ValueError, match="mini"):
        evaluate(build_agent(f"cfr:{path}"), "random", rounds=10, preset="small", progress=False)
    # greedy=true plays, and is evaluated as, each information set's most probable action
    pure_agent = build_agent(f"cfr:{path}:greedy=true", seed=0)
    _, tree = variant_tree("mini")
    pure = pure_agent.tree_policy(tree)
    first, n = pure_agent.iset_first, pure_agent.iset_n
    assert np.array_equal(first[1:], first[:-1] + n[:-1])
    for k in range(0, first.size, max(1, first.size // 50)):
        sl = slice(first[k], first[k] + n[k])
        assert pure[sl].sum() == 1 and np.argmax(pure[sl]) == np.argmax(agent.policy[sl])
    assert exploitability(pure_agent, preset="mini").nash_conv == pytest.approx(
        S.nash_conv(tree, pure)["nash_conv"])
    with pytest.raises(ValueError, match="no CFR policy"):
        build_agent(f"cfr:{tmp_path / 'missing.npz'}")


@pytest.mark.parametrize("flags", [TINY_ONE_DEAL, TINY_TWO_DEALS])
def test_agent_rebuilds_the_information_sets(flags: dict, tmp_path) -> None:
    """In played games the agent places every decision in an information set of the
    tree whose legal actions are the decision's (it counts any other as unknown)."""
    from agents.pasur.cfr import CFRAgent

    _, tree = variant_tree("mini", **flags)
    S.save_policy(tmp_path / "p.npz", tree, S.uniform_policy(tree), "mini")
    agent = CFRAgent(tmp_path / "p.npz", seed=1)
    evaluate(agent, "greedy", rounds=200, preset="mini", seed=3, progress=False, **flags)
    assert agent.unknown == 0 and agent.found > 0


def test_agrees_with_openspiel() -> None:
    """OpenSpiel's nash_conv and CFRPlusSolver on the python_pasur game of the same tiny
    variant (it deals card by card) give the solver's numbers."""
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (openspiel extra)")
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import cfr
    from open_spiel.python.algorithms import exploitability as os_exploitability

    import pasur_env.openspiel  # noqa: F401 - registers python_pasur

    flags = {**TINY_ONE_DEAL, "cards": " ".join(TINY_ONE_DEAL["cards"])}
    game = pyspiel.load_game("python_pasur", {"preset": "mini", **flags})
    tree = S.variant_tree(_engine(TINY_ONE_DEAL))
    uniform = os_exploitability.nash_conv(game, os_policy.UniformRandomPolicy(game))
    assert uniform == pytest.approx(S.nash_conv(tree, S.uniform_policy(tree))["nash_conv"])
    theirs = cfr.CFRPlusSolver(game)
    for _ in range(5):
        theirs.evaluate_and_update_policy()
    ours = S.CFRPlus(tree)
    ours.run(5)
    assert os_exploitability.nash_conv(game, theirs.average_policy()) == pytest.approx(
        ours.nash_conv()["nash_conv"])
