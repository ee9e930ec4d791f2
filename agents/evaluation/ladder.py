"""A persistent ladder: agents added one at a time, each playing only the members before it.

A ladder file (one JSON document, :data:`SCHEMA` version :data:`VERSION`) holds the game
and its rules, the seed and the rounds of its fixed duplicate deals (deal ``g`` is the
same for every pair: :func:`agents.evaluation.match.evaluate` deals from the seed), its
members (spec, label, provenance from :func:`agents.registry.agent_provenance`, when
they joined) and every pair's per-group results (one entry per duplicate group: the
point difference, the round wins and the rounds). Adding a member plays its pairs with
the members already there and nothing else; the ratings are fitted when the ladder is
shown, by the tournament's fit (:func:`agents.evaluation.tournament.fit_tournament`:
Bradley-Terry by ``choix``, bootstrap over the duplicate groups of every pair).

Example::

    from agents.evaluation.ladder import Ladder
    lad = Ladder.open("ladder.json", game="pasur", rounds=2000)
    lad.add("greedy"); lad.add("heuristic"); lad.save()
    print(lad.ratings(anchor="random").table())

The shipped reference ladders (docs/ladders/) are built by ``make ladder`` and rendered
into docs/leaderboard.md by :func:`render_doc` (``python -m agents.evaluation.ladder
render docs/leaderboard.md``).
"""

from __future__ import annotations

import datetime
import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation.match import check_agents, evaluate, seatings, setup
from agents.evaluation.results import EvalResult, json_number
from agents.evaluation.tournament import PairRunner, TournamentResult, fit_tournament
from agents.registry import agent_label, agent_provenance, build_agent
from pasur_env.games import game_info

__all__ = ["Ladder", "Member", "SCHEMA", "VERSION", "render_doc"]

#: the ``schema`` field of a ladder file, and the version this code writes and reads
SCHEMA = "pasur-ladder"
VERSION = 1

#: the summary figures of a pair kept in the file (its per-group arrays are kept apart)
_PAIR_FIELDS = ("rounds", "deals", "seed", "seconds", "decisions", "mean_point_diff",
                "std_error", "mean_points_a", "mean_points_b", "round_win_rate",
                "round_wins", "round_ties", "round_losses")


@dataclass
class Member:
    """One agent of a ladder: how to build it again and what it was when it joined."""

    label: str
    spec: str
    provenance: dict[str, Any]
    added: str
    rounds: int

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "spec": self.spec, "provenance": dict(self.provenance),
                "added": self.added, "rounds": self.rounds}


def _number_list(a: np.ndarray) -> list[Any]:
    """A per-group array for JSON: whole numbers as ints (half wins stay floats)."""
    return [int(x) if float(x).is_integer() else float(x) for x in np.asarray(a)]


def _pair_json(m: EvalResult) -> dict[str, Any]:
    out: dict[str, Any] = {"a": m.a, "b": m.b}
    out.update({k: json_number(getattr(m, k)) for k in _PAIR_FIELDS})
    out["ci95"] = [json_number(x) for x in m.ci95]
    out["agent_decisions"] = dict(m.agent_decisions)
    out["seconds_per_decision"] = {k: json_number(v) for k, v in m.seconds_per_decision.items()}
    out["groups"] = {"diff_sum": _number_list(m.group_diff_sum),
                     "win_sum": _number_list(m.group_win_sum),
                     "rounds": _number_list(m.group_rounds)}
    return out


def _nan(x: Any) -> float:
    return float("nan") if x is None else float(x)


@dataclass
class Ladder:
    """A ladder file's contents; :meth:`open` reads or starts one, :meth:`save` writes it."""

    game: str
    players: int
    seed: int
    rounds: int
    batch: int = 4096
    preset: str | None = None
    rule_flags: dict[str, Any] = field(default_factory=dict)
    rules: dict[str, Any] = field(default_factory=dict)
    members: list[Member] = field(default_factory=list)
    #: the pairs' results keyed by (older member, newer member) labels
    pairs: dict[tuple[str, str], EvalResult] = field(default_factory=dict)
    path: Path | None = None

    # ---- files ----------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, *, game: str | None = None, players: int | None = None,
             seed: int | None = None, rounds: int = 2000, batch: int = 4096,
             preset: str | None = None, **rule_flags: Any) -> Ladder:
        """The ladder in ``path``, or a new empty one with these settings when there is
        no such file. For an existing file, a setting given that differs from the file's
        (the game, players, seed, preset or a rule) is a ``ValueError``: the ladder's
        deals are fixed when it is made."""
        path = Path(path)
        if not path.exists():
            gid = game_info(game or "pasur").id
            spec = setup(gid, players, preset, dict(rule_flags))
            lad = cls(game=gid, players=spec.players, seed=0 if seed is None else int(seed),
                      rounds=int(rounds), batch=int(batch), preset=preset,
                      rule_flags=dict(rule_flags), rules=dict(spec.rules), path=path)
            lad._check_sizes(rounds)
            return lad
        lad = cls.load(path)
        given = {"game": None if game is None else game_info(game).id, "players": players,
                 "seed": seed, "preset": preset}
        for key, value in given.items():
            if value is not None and value != getattr(lad, key):
                raise ValueError(f"the ladder {path} has {key} {getattr(lad, key)!r}, not "
                                 f"{value!r}: its deals and rules are fixed when it is made")
        if rule_flags and rule_flags != lad.rule_flags:
            raise ValueError(f"the ladder {path} has the rules {lad.rule_flags or 'default'}, "
                             f"not {rule_flags}: its deals and rules are fixed when it is made")
        return lad

    @classmethod
    def load(cls, path: str | Path) -> Ladder:
        """Read a ladder file; ``ValueError`` naming the file when it is not one."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ValueError(f"{path} is not a ladder file (not JSON: {e})") from None
        try:
            lad = cls.from_json(data)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"{path} is not a valid ladder file: {e}") from None
        lad.path = path
        return lad

    def save(self, path: str | Path | None = None) -> Path:
        """Write the ladder (to ``path``, default where it was opened), atomically."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("the ladder has no file: give a path")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        tmp.replace(target)
        self.path = target
        return target

    def to_json(self) -> dict[str, Any]:
        """The file's contents: settings, members, pairs (see the module's docstring)."""
        return {
            "schema": SCHEMA, "version": VERSION, "game": self.game, "players": self.players,
            "seed": self.seed, "rounds": self.rounds, "batch": self.batch,
            "preset": self.preset, "rule_flags": dict(self.rule_flags),
            "rules": dict(self.rules), "members": [m.to_json() for m in self.members],
            "pairs": [_pair_json(m) for m in self.pairs.values()],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ladder:
        """The ladder of :meth:`to_json`'s dict; ``ValueError`` for another schema or a
        newer version, or pairs that name no member."""
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError(f"its schema is not {SCHEMA!r}")
        if not isinstance(data.get("version"), int) or data["version"] > VERSION:
            raise ValueError(f"its version {data.get('version')!r} is not one this library "
                             f"reads (up to {VERSION}); upgrade pasur-env")
        lad = cls(game=game_info(data["game"]).id, players=int(data["players"]),
                  seed=int(data["seed"]), rounds=int(data["rounds"]), batch=int(data["batch"]),
                  preset=data["preset"], rule_flags=dict(data["rule_flags"]),
                  rules=dict(data["rules"]),
                  members=[Member(label=str(m["label"]), spec=str(m["spec"]),
                                  provenance=dict(m["provenance"]), added=str(m["added"]),
                                  rounds=int(m["rounds"])) for m in data["members"]])
        labels = lad.labels()
        if len(set(labels)) != len(labels):
            raise ValueError("two members have the same label")
        for p in data["pairs"]:
            if p["a"] not in labels or p["b"] not in labels:
                raise ValueError(f"the pair {p['a']!r} vs {p['b']!r} names an agent that is "
                                 "not a member")
            lad.pairs[(p["a"], p["b"])] = lad._pair_result(p)
        return lad

    def _pair_result(self, p: dict[str, Any]) -> EvalResult:
        """A stored pair as the :class:`EvalResult` the tournament's fit reads."""
        g = p["groups"]
        arrays = [np.asarray(g[k], dtype=np.float64) for k in ("diff_sum", "win_sum", "rounds")]
        if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1:
            raise ValueError(f"the groups of {p['a']!r} vs {p['b']!r} differ in length")
        res = EvalResult(
            a=p["a"], b=p["b"], players=self.players, seed=int(p["seed"]), mode="round",
            rules=dict(self.rules), seatings=seatings(self.players), game=self.game,
            ci95=tuple(_nan(x) for x in p["ci95"]),
            agent_decisions={k: int(v) for k, v in p["agent_decisions"].items()},
            seconds_per_decision={k: _nan(v) for k, v in p["seconds_per_decision"].items()},
            group_diff_sum=arrays[0], group_win_sum=arrays[1], group_rounds=arrays[2])
        for k in _PAIR_FIELDS:
            cur = getattr(res, k)
            setattr(res, k, type(cur)(p[k]) if p[k] is not None else _nan(p[k]))
        return res

    # ---- members and pairs ---------------------------------------------------------------
    def labels(self) -> list[str]:
        return [m.label for m in self.members]

    def _check_sizes(self, rounds: int) -> None:
        n = len(seatings(self.players))
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < n or rounds % n:
            raise ValueError(f"rounds must be a positive multiple of {n} (the seatings of a "
                             f"deal), got {rounds!r}")

    def _check_new(self, spec: str) -> str:
        """The label of ``spec``, refused when a member has it or its code does not fit."""
        if not isinstance(spec, str) or not spec.strip():
            raise TypeError(f"a ladder member is an agent spec (a string), got {spec!r}")
        label = agent_label(spec)
        if label in self.labels():
            where = f" {self.path}" if self.path else ""
            raise ValueError(f"{label!r} is already a member of the ladder{where}; its pairs "
                             "are stored and are not played again")
        engine = setup(self.game, self.players, self.preset, dict(self.rule_flags)).engine_flags
        check_agents([spec], self.game, self.players, engine)
        return label

    def _check_members_unchanged(self) -> None:
        """Refuse to play against a member whose source file changed since it joined
        (its SHA-256 differs): the new pairs would not be against the agent on the ladder."""
        for m in self.members:
            old = m.provenance.get("sha256")
            if old is None:
                continue
            now = agent_provenance(m.spec, build_agent(m.spec, seed=0, game=self.game),
                                   self.game).get("sha256")
            if now != old:
                raise ValueError(f"member {m.label!r} changed since it joined the ladder (its "
                                 f"source's SHA-256 was {old[:12]}, is {str(now)[:12]}): add "
                                 "the new version under another spec or start a new ladder")

    def add(self, spec: str, *, rounds: int | None = None, progress: bool = True,
            run_pairs: PairRunner | None = None) -> list[tuple[str, str]]:
        """Add ``spec`` as a member: play it (as B) against every member (as A) on the
        ladder's deals, ``rounds`` per pair (default the ladder's: fewer rounds play a
        prefix of the same deals), and store the pairs. Returns the pairs played.

        ``run_pairs`` plays them elsewhere (as for
        :func:`agents.evaluation.tournament.tournament`, e.g. on Ray)."""
        label = self._check_new(spec)
        rounds = self.rounds if rounds is None else rounds
        self._check_sizes(rounds)
        self._check_members_unchanged()
        specs = [m.spec for m in self.members] + [spec.strip()]
        new = len(specs) - 1
        index_pairs = [(i, new) for i in range(new)]
        kwargs = dict(rounds=rounds, players=self.players, seed=self.seed, batch=self.batch,
                      preset=self.preset, game=self.game, **self.rule_flags)
        if not index_pairs:
            played: dict[tuple[int, int], EvalResult] = {}
        elif run_pairs is not None:
            played = run_pairs(specs, index_pairs, kwargs, progress)
        else:
            played = {(i, j): evaluate(specs[i], specs[j], progress=progress, **kwargs)
                      for i, j in index_pairs}
        if played:
            provenance = next(iter(played.values())).provenance.get("b", {})
        else:
            provenance = agent_provenance(spec, build_agent(spec, seed=0, game=self.game),
                                          self.game)
        when = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        self.members.append(Member(label=label, spec=spec.strip(), provenance=provenance,
                                   added=when, rounds=int(rounds)))
        keys = []
        for (i, _), res in sorted(played.items()):
            key = (self.members[i].label, label)
            res.a, res.b = key
            self.pairs[key] = res
            keys.append(key)
        return keys

    # ---- ratings ---------------------------------------------------------------------
    def ratings(self, *, anchor: str | None = "random", base: float = 0.0,
                bootstrap: int = 500) -> TournamentResult:
        """The fitted ladder (:func:`agents.evaluation.tournament.fit_tournament`):
        ``anchor`` (default ``random`` when it is a member, else the mean) at ``base``."""
        labels = self.labels()
        if len(labels) < 2:
            raise ValueError(f"the ladder has {len(labels)} member(s); ratings need two")
        if anchor is not None and anchor not in labels:
            if anchor != "random":
                raise ValueError(f"anchor {anchor!r} is not a member ({', '.join(labels)})")
            anchor = None
        at = {lab: i for i, lab in enumerate(labels)}
        matches = {(at[a], at[b]): m for (a, b), m in self.pairs.items()}
        return fit_tournament(labels, matches, anchor=anchor, base=base, bootstrap=bootstrap,
                              seed=self.seed, game=self.game)

    def members_markdown(self) -> str:
        """The members as a markdown table: spec, origin, content hash, rounds, date."""
        out = ["| member | spec | origin | SHA-256 | rounds per pair | added |",
               "|---|---|---|---|---|---|"]
        for m in self.members:
            sha = m.provenance.get("sha256")
            out.append(f"| {m.label} | `{m.spec}` | {m.provenance.get('origin', '')} | "
                       f"{sha[:12] if sha else ''} | {m.rounds:,} | {m.added[:10]} |")
        return "\n".join(out)

    def markdown(self, result: TournamentResult | None = None, **ratings: Any) -> str:
        """The ratings (``result``, default :meth:`ratings` with ``ratings``' arguments),
        the pairwise matrix and the members as markdown."""
        result = self.ratings(**ratings) if result is None else result
        return result.markdown() + "\n**Members**\n\n" + self.members_markdown() + "\n"

    def write_markdown(self, path: str | Path, result: TournamentResult | None = None) -> None:
        """:meth:`markdown` into the file ``path``."""
        Path(path).write_text(self.markdown(result), encoding="utf-8")


# ---- the shipped leaderboard ---------------------------------------------------------
#: a block of docs/leaderboard.md rendered from a ladder file
_BLOCK = re.compile(r"(<!-- ladder (\S+) -->\n).*?(<!-- /ladder -->)", re.S)


def render_doc(doc: str | Path, bootstrap: int = 500) -> bool:
    """Rewrite every ``<!-- ladder FILE -->`` ... ``<!-- /ladder -->`` block of ``doc``
    with the markdown of that ladder file (a path relative to ``doc``'s folder). Returns
    whether the text changed."""
    doc = Path(doc)
    root = doc.resolve().parent
    text = doc.read_text(encoding="utf-8")

    def block(m: re.Match[str]) -> str:
        lad = Ladder.load(root / m.group(2))
        return f"{m.group(1)}{lad.markdown(bootstrap=bootstrap)}{m.group(3)}"

    new = _BLOCK.sub(block, text)
    if new != text:
        doc.write_text(new, encoding="utf-8")
    return new != text


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.evaluation.ladder render DOC``: refresh the leaderboard's tables."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 2 or argv[0] != "render":
        print("usage: python -m agents.evaluation.ladder render DOC.md", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    changed = render_doc(argv[1])
    print(f"{argv[1]}: {'updated' if changed else 'unchanged'} ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
