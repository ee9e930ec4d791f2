"""Pinned, versioned baselines: every shipped agent has versions (``greedy@1``), the bare
name is the latest, an unknown version is refused, results record the pinned spec, and
every version still decides as its stored fingerprint says (``tests/fingerprints.py``)."""

from __future__ import annotations

import fingerprints
import pytest

from agents import registry
from agents.apps.cli import main
from agents.evaluation.match import evaluate
from agents.registry import (
    agent_provenance,
    agent_versions,
    build_agent,
    make_agent,
    pinned_spec,
)


def test_every_built_in_agent_of_every_game_has_a_version() -> None:
    for game in ("pasur", "persian_rummy"):
        origins = registry.agent_origins(game)
        for name, versions in agent_versions(game).items():
            if origins[name] == "built-in":
                assert versions, f"{game} {name} has no version"
    assert agent_versions("pasur")["heuristic"] == [1]
    assert agent_versions("persian_rummy")["rollout"] == [1]


def test_a_version_and_options_build_the_agent_and_the_bare_name_is_the_latest() -> None:
    agent = build_agent("ismcts@1:budget=20", seed=0)
    assert type(agent).__name__ == "ISMCTSAgent" and agent.budget == 20
    assert type(make_agent("GREEDY@1", game="persian_rummy")).__name__ == "RummyGreedyAgent"
    assert pinned_spec("ismcts:budget=20") == "ismcts@1:budget=20"
    assert pinned_spec("heuristic@1") == "heuristic@1"
    assert pinned_spec("some/model.zip") is None


@pytest.mark.parametrize("spec, game, said", [
    ("greedy@2", "pasur", "agent 'greedy' has no version '2'; its versions: greedy@1"),
    ("heuristic@x:budget=3", "pasur", "agent 'heuristic' has no version 'x'"),
    ("rollout@0", "persian_rummy", "Persian Rummy agent 'rollout' has no version '0'"),
])
def test_an_unknown_version_is_refused_with_the_versions(spec: str, game: str,
                                                         said: str) -> None:
    with pytest.raises(ValueError, match=said):
        build_agent(spec, game=game)


def test_a_new_version_becomes_the_bare_name_and_the_old_one_stays(monkeypatch) -> None:
    for table in (registry._FACTORIES, registry._ORIGINS):
        monkeypatch.setitem(table, "pasur", dict(table["pasur"]))
    new = lambda seed=None: make_agent("random", seed=seed)  # noqa: E731
    registry.register("greedy@2", new)
    assert registry._FACTORIES["pasur"]["greedy"] is new
    assert type(make_agent("greedy@1")).__name__ == "GreedyAgent"
    assert pinned_spec("greedy") == "greedy@2"
    with pytest.raises(ValueError, match="name@N with N a positive int"):
        registry.register("greedy@two", new)


def test_results_record_the_pinned_spec() -> None:
    res = evaluate("greedy", "random@1", rounds=4, progress=False, game="persian_rummy")
    assert res.provenance["a"]["pinned"] == "greedy@1"
    assert res.provenance["b"]["spec"] == res.provenance["b"]["pinned"] == "random@1"
    assert res.provenance["b"]["origin"] == "built-in"
    assert "pinned" not in agent_provenance(make_agent("random"), make_agent("random"))


def test_pasur_agents_shows_the_versions(capsys) -> None:
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert any(line.split()[:2] == ["heuristic", "@1"] for line in out.splitlines())
    assert "name@N pins version N" in out


def test_every_version_has_a_stored_fingerprint_and_no_other() -> None:
    stored = {(g, s) for g, specs in fingerprints.stored().items() for s in specs}
    assert stored == set(fingerprints.shipped_versions()), (
        "tests/data/agent_fingerprints.json does not list exactly the shipped versions: "
        "run `python tests/fingerprints.py --update` after adding or removing a version")


@pytest.mark.parametrize("game, spec", fingerprints.shipped_versions())
def test_a_version_decides_as_its_fingerprint_says(game: str, spec: str) -> None:
    if spec.startswith("ppo@"):
        pytest.importorskip("sb3_contrib")
    want = fingerprints.stored().get(game, {}).get(spec)
    got = fingerprints.fingerprint(game, spec)
    name, _, version = spec.partition("@")
    assert got == want, (
        f"{game} agent {spec} no longer decides as it did (fingerprint {got}, stored "
        f"{want}): a change of an agent's behaviour needs a new version. Keep {spec} (its "
        f"code or weights) and register the new behaviour as {name}@{int(version) + 1} in "
        "the game's row (agents/pasur/game.py, agents/rummy/game.py), then "
        "run `python tests/fingerprints.py --update`. Update without a new version only "
        "if the decisions did not change on purpose and no published figure used them.")


def test_a_new_net_version_plays_its_own_files_and_the_old_one_stays(monkeypatch) -> None:
    """Shipping a network for one table size is a version: the new ``net@N`` plays its
    files, the bare ``net`` follows it, ``net@1`` keeps the old ones, and ``net-ismcts``
    (its own versions) is not moved."""
    from agents.pasur import game as pasur_game
    from agents.pasur.move_net.agent import pretrained_net_path, shipped_net_files

    for table in (registry._FACTORIES, registry._ORIGINS):
        monkeypatch.setitem(table, "pasur", dict(table["pasur"]))
    nets = dict(pasur_game.NET_VERSIONS["net"])
    new = max(nets) + 1
    monkeypatch.setitem(pasur_game.NET_VERSIONS, "net", {**nets, new: {2: "net_2p.npz"}})
    registry.register(f"net@{new}", pasur_game._shipped_net(
        "net", "agents.pasur.move_net:NetAgent", new))
    assert make_agent("net").player_counts == make_agent(f"net@{new}").player_counts == (2,)
    assert make_agent("net@1").player_counts == make_agent("net-ismcts").player_counts
    assert make_agent("net@1").player_counts == (2, 3, 4)
    assert pinned_spec("net:temperature=1") == f"net@{new}:temperature=1"
    assert make_agent("net@1").weights_file(3) == pretrained_net_path(3, 1)
    assert pretrained_net_path(3) is None and pretrained_net_path(3, 1).exists()
    with pytest.raises(ValueError, match="plays 2-player pasur, not 3-player"):
        evaluate("net", "random", rounds=2, players=3, progress=False)
    with pytest.raises(ValueError, match=f"net has no version 0; its versions: 1, .*{new}"):
        shipped_net_files(0)


def test_every_shipped_net_file_exists_and_each_version_replaces_a_file() -> None:
    """Every version's files are shipped, a version differs from the one before, and
    each agent's versions are registered (``net@2``: new 3- and 4-player networks;
    ``net-ismcts`` kept the old ones)."""
    from agents.pasur.game import NET_VERSIONS
    from agents.pasur.move_net.agent import shipped_net_files

    for agent, versions in NET_VERSIONS.items():
        assert agent_versions("pasur")[agent] == sorted(versions)
        for v in versions:
            assert all(f.is_file() for f in shipped_net_files(v, agent).values()), (agent, v)
            assert v == 1 or versions[v] != versions[v - 1]
    assert make_agent("net@1").weights_file(3).name == "net_3p.npz"
    assert make_agent("net@2").weights_file(3).name == "net_3p@2.npz"
    assert make_agent("net-ismcts").weights_file(3).name == "net_3p.npz"
    assert make_agent("net@2").weights_file(2) == make_agent("net@1").weights_file(2)


def test_net_takes_a_users_file_for_each_table_size(tmp_path) -> None:
    """``NetAgent(files={players: path})``: a user's networks, one per table size."""
    import shutil

    from agents.pasur.move_net import NetAgent
    from agents.pasur.move_net.agent import pretrained_net_path

    mine = tmp_path / "mine_3p.npz"
    shutil.copy(pretrained_net_path(3), mine)
    agent = NetAgent(files={3: mine})
    assert agent.player_counts == (3,) and agent.weights_file(3) == mine
    res = evaluate(agent, "random", rounds=6, players=3, progress=False)
    assert res.provenance["a"]["weights"] == str(mine)
