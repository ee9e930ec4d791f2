"""A user's agent plays wherever the built-ins play: ``path/to/file.py:Class`` and
``package.module:Class`` specs (with ``:key=value`` options), the entry-point group
``pasur_env.agents``, ``pasur serve --agent``; every failure names the agent's spec in
the project's words (one test per message); results say where each agent came from."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import Agent, registry
from agents.evaluation.match import evaluate
from agents.registry import build_agent, make_agent

ROOT = Path(__file__).resolve().parents[1]

AGENT = '''
import numpy as np
from agents import Agent


class MostCards(Agent):
    """The first legal action (or the last): a few lines, a full agent."""

    name = "mostcards"
    game_ids = ("pasur",)

    def __init__(self, seed: int | None = None, depth: int = 1, last: bool = False):
        self.depth, self.last = depth, last

    def act(self, obs, mask, view):
        first = np.argmax(mask, axis=1)
        lastone = mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)
        return (lastone if self.last else first).astype(np.int64)


class TwoOnly(MostCards):
    player_counts = (2,)


class NoSeed(MostCards):
    def __init__(self, depth: int = 1):
        super().__init__(depth=depth)
        self.seeded = None

    def reset(self, seed=None):
        self.seeded = seed


class Broken(MostCards):
    def __init__(self, seed=None):
        raise ValueError("no table for me")


class NotAnAgent:
    def __init__(self, seed=None):
        pass


class Abstract(Agent):
    name = "abstract"


def make_most_cards(seed=None, last: bool = False):
    return MostCards(seed=seed, last=last)


ANSWER = 42


class RummyLast(Agent):
    name = "rummylast"
    game_ids = ("persian_rummy",)

    def act(self, obs, mask, view):
        return (mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)).astype(np.int64)
'''


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder outside the repository with ``my_agent.py`` in it."""
    (tmp_path / "my_agent.py").write_text(AGENT, encoding="utf-8")
    return tmp_path


@pytest.fixture
def kept_registry():
    """The registry put back as it was once the test is done (``offer_spec`` registers
    names)."""
    saved = {g: (dict(registry._FACTORIES[g]), list(registry._NAMES[g]),
                 dict(registry._ORIGINS[g])) for g in list(registry._NAMES)}
    yield
    for g, (factories, names, origins) in saved.items():
        registry._FACTORIES[g].clear()
        registry._FACTORIES[g].update(factories)
        registry._NAMES[g][:] = names
        registry._ORIGINS[g].clear()
        registry._ORIGINS[g].update(origins)


def _spec(folder: Path, attr: str) -> str:
    return f"{folder / 'my_agent.py'}:{attr}"


# ---- specs that build ---------------------------------------------------------------------
def test_a_file_spec_with_options_builds_the_class(folder: Path) -> None:
    agent = build_agent(_spec(folder, "MostCards") + ":depth=3,last=true", seed=1)
    assert type(agent).__name__ == "MostCards" and (agent.depth, agent.last) == (3, True)


def test_a_factory_function_is_an_agent_too(folder: Path) -> None:
    agent = build_agent(_spec(folder, "make_most_cards") + ":last=yes", seed=1)
    assert agent.last is True


def test_a_module_spec_on_the_python_path(folder: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(folder))
    agent = make_agent("my_agent:MostCards", seed=0, depth=2)
    assert agent.depth == 2


def test_an_agent_without_a_seed_parameter_is_seeded_through_reset(folder: Path) -> None:
    assert make_agent(_spec(folder, "NoSeed"), seed=7).seeded == 7


def test_built_in_names_and_openspiel_specs_are_not_code(folder: Path) -> None:
    assert make_agent("greedy").name == "greedy"
    from agents.specs import is_code_spec

    assert is_code_spec("openspiel:mcts")  # the loader is tried first
    try:
        make_agent("openspiel:mcts")
    except (ImportError, ValueError) as e:  # the missing extra, not a module to import
        assert "Python path" not in str(e)


# ---- one test per failure message ---------------------------------------------------------
def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"agent '.*nothere\.py:X': no file .*nothere\.py"):
        make_agent(f"{tmp_path}/nothere.py:X")


def test_a_file_that_does_not_import_says_why_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("def f(:\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.py did not import: SyntaxError: .*\(line 1\)$"):
        make_agent(f"{tmp_path}/bad.py:Agent")


def test_a_file_whose_import_fails_names_the_missing_module(tmp_path: Path) -> None:
    (tmp_path / "needs.py").write_text("import nosuchpackage_xyz\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"needs\.py did not import: ModuleNotFoundError: "
                       r"No module named 'nosuchpackage_xyz'"):
        make_agent(f"{tmp_path}/needs.py:Agent")


def test_a_module_not_on_the_path_is_named() -> None:
    with pytest.raises(ValueError, match=r"agent 'nosuch_mod_xyz:Cls': no module named "
                       r"'nosuch_mod_xyz' on the Python path \(set PYTHONPATH"):
        make_agent("nosuch_mod_xyz:Cls")


def test_a_module_that_does_not_import_says_why_in_one_line(tmp_path: Path,
                                                           monkeypatch) -> None:
    (tmp_path / "raising_mod_xyz.py").write_text("raise RuntimeError('no GPU here')\n",
                                                 encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=r"agent 'raising_mod_xyz:Cls': module raising_mod_xyz "
                       r"did not import: RuntimeError: no GPU here$"):
        make_agent("raising_mod_xyz:Cls")


def test_a_missing_attribute_suggests_the_closest(folder: Path) -> None:
    with pytest.raises(ValueError, match=r"has no 'MostCrads' \(did you mean 'MostCards'\?\); "
                       r"it defines MostCards, TwoOnly"):
        make_agent(_spec(folder, "MostCrads"))


def test_a_file_spec_without_a_class_lists_what_the_file_defines(folder: Path) -> None:
    with pytest.raises(ValueError, match=r"name the class or factory that plays, "
                       r".*my_agent\.py:NAME \(.*my_agent\.py defines MostCards, TwoOnly"):
        make_agent(str(folder / "my_agent.py"))


def test_a_dotted_name_is_told_the_spec_forms() -> None:
    with pytest.raises(ValueError, match=r"unknown agent 'my_agent\.MostCards'.*module:Class"):
        make_agent("my_agent.MostCards")


def test_an_object_that_is_not_callable_is_refused(folder: Path) -> None:
    with pytest.raises(TypeError, match=r":ANSWER': it names int 42, not an agent class"):
        make_agent(_spec(folder, "ANSWER"))


def test_a_class_without_the_protocol_is_not_an_agent(folder: Path) -> None:
    with pytest.raises(TypeError, match=r"NotAnAgent\(\.\.\.\) made a NotAnAgent, which is not "
                       r"an agent: it lacks act, reset, name, needs_observation"):
        make_agent(_spec(folder, "NotAnAgent"))


def test_an_agent_class_without_act_says_so(folder: Path) -> None:
    with pytest.raises(TypeError, match=r"'.*:Abstract': Abstract does not define act"):
        make_agent(_spec(folder, "Abstract"))


def test_an_unknown_option_lists_the_accepted_ones(folder: Path) -> None:
    with pytest.raises(TypeError, match=r"no option 'dpeth' \(did you mean 'depth'\?\); "
                       r"its options: depth, last$"):
        build_agent(_spec(folder, "MostCards") + ":dpeth=2")


def test_an_option_of_the_wrong_type_is_named(folder: Path) -> None:
    with pytest.raises(TypeError, match=r"option 'depth' must be int, got 'deep'"):
        build_agent(_spec(folder, "MostCards") + ":depth=deep")


def test_an_agent_that_fails_to_build_says_why_in_one_line(folder: Path) -> None:
    with pytest.raises(ValueError, match=r":Broken': Broken\(\.\.\.\) failed: ValueError: "
                       "no table for me$"):
        make_agent(_spec(folder, "Broken"))


def test_an_agent_of_another_game_is_refused_naming_its_spec(folder: Path) -> None:
    with pytest.raises(ValueError, match=r"agent '.*:MostCards' plays pasur, not persian_rummy"):
        make_agent(_spec(folder, "MostCards"), game="persian_rummy")


def test_an_agent_of_another_table_size_is_refused_naming_its_spec(folder: Path) -> None:
    spec = _spec(folder, "TwoOnly")
    with pytest.raises(ValueError, match=rf"agent A \({spec}\) 'mostcards' plays 2-player "
                       "pasur, not 3-player"):
        evaluate(spec, "greedy", rounds=6, players=3, progress=False)


def test_a_terminal_seat_names_the_spec_of_an_agent_of_another_table_size(folder: Path,
                                                                         capsys) -> None:
    from agents.apps.cli import main

    spec = _spec(folder, "TwoOnly")
    assert main(["demo", spec, "--players", "3", "--episode", "round"]) == 2
    assert (f"the agent at seat 0 ({spec}) 'mostcards' plays 2-player pasur, not 3-player"
            in capsys.readouterr().err)


# ---- results say where an agent came from -------------------------------------------------
def test_a_result_records_the_spec_and_the_sha256_of_its_file(folder: Path) -> None:
    spec = _spec(folder, "MostCards")
    res = evaluate(spec, "greedy", rounds=20, progress=False).to_json()
    digest = hashlib.sha256((folder / "my_agent.py").read_bytes()).hexdigest()
    assert res["provenance"]["a"] == {"spec": spec, "origin": "spec", "class": "MostCards",
                                      "file": str(folder / "my_agent.py"), "sha256": digest}
    import agents.pasur.greedy as greedy  # a built-in: its class and its file's hash

    assert res["provenance"]["b"] == {
        "spec": "greedy", "origin": "built-in", "class": "agents.pasur.greedy.GreedyAgent",
        "sha256": hashlib.sha256(Path(greedy.__file__).read_bytes()).hexdigest(),
        "pinned": "greedy@1"}


def test_an_exploitability_records_the_agents_file(folder: Path) -> None:
    from agents.evaluation.exploitability import _TINY, exploitability

    res = exploitability(_spec(folder, "MostCards"), **_TINY).to_json()
    assert res["provenance"]["origin"] == "spec"
    assert res["provenance"]["sha256"] == hashlib.sha256(
        (folder / "my_agent.py").read_bytes()).hexdigest()


# ---- the web table offers only the agents given at its start -------------------------------
def test_serve_agent_offers_the_spec_at_its_games_tables(folder: Path, kept_registry) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from agents.apps.web.app import create_app

    spec = _spec(folder, "MostCards") + ":last=true"
    assert registry.offer_spec(spec) == ("MostCards:last=true", ["pasur"])
    assert registry.agent_origins("pasur")["MostCards:last=true"] == f"spec {spec}"
    assert "MostCards:last=true" not in registry.agent_origins("persian_rummy")
    assert build_agent("MostCards:last=true", seed=0).last is True  # as the tables build it
    client = TestClient(create_app(), base_url="http://localhost")
    offered = client.get("/api/setup").json()["games"]["pasur"]["offered"]
    assert "MostCards:last=true" in offered["2"] and "MostCards:last=true" in offered["4"]
    r = client.post("/api/games", json={"game": "pasur", "players": 2, "seed": 1,
                                        "opponents": ["MostCards:last=true"]})
    assert r.status_code == 201, r.text[:200]
    other = "my_agent.py:NoSeed"  # never offered: a request loads no code
    r = client.post("/api/games", json={"game": "pasur", "players": 2, "opponents": [other]})
    assert r.status_code in (400, 422) and "unknown agent" in r.text


@pytest.mark.parametrize("game", ["pasur", "persian_rummy"])
def test_a_request_naming_an_agent_not_offered_is_refused_and_loads_no_code(
        folder: Path, kept_registry, monkeypatch: pytest.MonkeyPatch, game: str) -> None:
    """The server's agent list holds the spec given at its start; a spec in a request
    (a file in the server's folder, ``os:system``) is a 4xx and no code is imported."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from agents.apps.web.app import create_app

    trap = folder / "trap.py"  # imported, it would leave a file behind
    trap.write_text("import pathlib\npathlib.Path(__file__).with_suffix('.ran').touch()\n"
                    "from my_agent import MostCards\n", encoding="utf-8")
    monkeypatch.chdir(folder)
    registry.offer_spec("./my_agent.py:MostCards")
    client = TestClient(create_app(), base_url="http://localhost")
    setup = client.get("/api/setup").json()
    assert "MostCards" in setup["agents"] and "MostCards" in setup["games"]["pasur"]["offered"]["2"]
    players = 2 if game == "pasur" else 4
    called: list[str] = []
    monkeypatch.setattr(os, "system", lambda cmd: called.append(cmd) or 0)
    for spec in ("./my_agent.py:MostCards", "./trap.py:MostCards", "trap:MostCards",
                 "os:system", f"{folder / 'trap.py'}:MostCards"):
        r = client.post("/api/games", json={"game": game, "players": players, "seed": 1,
                                            "opponents": [spec] * (players - 1)})
        assert r.status_code in (400, 422), (spec, r.status_code, r.text[:200])
        assert "unknown agent" in r.text or len(spec) > 40, r.text[:200]  # or too long
    assert not (folder / "trap.ran").exists() and "trap" not in sys.modules and not called


def test_serve_agent_offers_a_rummy_agent_at_the_rummy_table(folder: Path,
                                                             kept_registry) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from agents.apps.web.app import create_app

    assert registry.offer_spec(_spec(folder, "RummyLast")) == ("RummyLast", ["persian_rummy"])
    client = TestClient(create_app(), base_url="http://localhost")
    games = client.get("/api/setup").json()["games"]
    assert "RummyLast" in games["persian_rummy"]["offered"]["4"]
    assert "RummyLast" not in games["pasur"]["offered"]["2"]


def test_pasur_eval_plays_a_rummy_agent_from_a_file(folder: Path) -> None:
    res = evaluate(_spec(folder, "RummyLast"), "random", rounds=4, game="persian_rummy",
                   progress=False)
    assert res.rounds == 4 and res.provenance["a"]["class"] == "RummyLast"


def test_serve_agent_refuses_a_spec_that_plays_none_of_the_games(folder: Path,
                                                                kept_registry) -> None:
    with pytest.raises(TypeError, match=r"NotAnAgent\(\.\.\.\) made a NotAnAgent"):
        registry.offer_spec(_spec(folder, "NotAnAgent"))
    with pytest.raises(ValueError, match=r"--agent takes a spec of your own agent"):
        registry.offer_spec("greedy")


# ---- the command line, from a folder outside the repository --------------------------------
def _pasur(args: list[str], cwd: Path,
           pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "agents", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def _dist(site: Path) -> None:
    """An installed package ``my-agents`` registering ``mostcards`` (a dist-info with
    entry points: what ``pip install`` leaves, without installing anything)."""
    (site / "my_agents_pkg.py").write_text(AGENT, encoding="utf-8")
    info = site / "my_agents-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-agents\nVersion: 0.1\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[pasur_env.agents]\nmostcards = my_agents_pkg:MostCards\n"
        "greedy = my_agents_pkg:MostCards\n", encoding="utf-8")  # a built-in's name: skipped


@pytest.mark.parametrize("form", ["file", "module", "entry point"])
def test_pasur_eval_plays_a_users_agent(form: str, folder: Path) -> None:
    site = folder / "site"
    site.mkdir()
    _dist(site)
    spec = {"file": "./my_agent.py:MostCards", "module": "my_agent:MostCards",
            "entry point": "mostcards"}[form]
    path = {"file": None, "module": folder, "entry point": site}[form]
    r = _pasur(["eval", spec, "greedy", "--rounds", "20", "--json", "-", "--no-progress"],
               folder, path)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["a"] == spec and data["rounds"] == 20
    origin = {"file": "spec", "module": "spec", "entry point": "entry point my-agents 0.1"}
    assert data["provenance"]["a"]["origin"] == origin[form]
    assert len(data["provenance"]["a"]["sha256"]) == 64


def test_pasur_agents_lists_games_and_origins(folder: Path) -> None:
    site = folder / "site"
    site.mkdir()
    _dist(site)
    r = _pasur(["agents"], folder, site)
    assert r.returncode == 0, r.stderr
    rows = {line.split()[0]: line for line in r.stdout.splitlines() if line.strip()}
    assert rows["greedy"].split()[1:] == ["@1", "pasur,", "persian_rummy", "built-in"]
    assert rows["heuristic"].split()[1:] == ["@1", "pasur", "built-in"]
    assert rows["mostcards"].split()[1:] == ["-", "pasur", "entry", "point", "my-agents", "0.1"]
    assert "pasur_env.agents entry point 'greedy' (entry point my-agents 0.1) skipped: pasur " \
        "already has an agent 'greedy'" in r.stderr


def test_a_bad_spec_on_the_command_line_is_one_line(folder: Path) -> None:
    r = _pasur(["eval", "./my_agent.py:MostCards:dpeth=2", "greedy", "--rounds", "20"], folder)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "pasur eval: error: agent './my_agent.py:MostCards': no option 'dpeth' (did you mean "
        "'depth'?); its options: depth, last"]


# ---- the base class's defaults ---------------------------------------------------------------
class _Coin(Agent):
    """A one-decision-at-a-time agent with no seeding code: a random legal action."""

    name = "coin"

    def act(self, obs, mask, view) -> np.ndarray:
        return np.array([self.rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int64)


def test_the_base_class_seeds_rng_so_a_seeded_agent_repeats() -> None:
    mask = np.ones((50, 104), dtype=bool)
    first = make_agent(_Coin(), seed=7).act(None, mask, None)
    again = make_agent(_Coin(), seed=7).act(None, mask, None)
    other = make_agent(_Coin(), seed=8).act(None, mask, None)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
    agent = _Coin()
    agent.rng = np.random.default_rng(7)  # subclasses that set their own generator still can
    np.testing.assert_array_equal(agent.act(None, mask, None), first)
    assert isinstance(_Coin().rng, np.random.Generator)  # usable before any reset
