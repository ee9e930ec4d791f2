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
