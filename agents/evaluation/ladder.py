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

On a ladder whose rules are a small variant that
:func:`agents.evaluation.exploitability.exploitability` solves exactly (Pasur's ``mini``
or ``small`` preset, two players), a member's entry also holds its exact exploitability
(NashConv, each seat's best-response gain and the settings they were computed with):
:meth:`Ladder.add` computes it when the member joins, :meth:`Ladder.fill_exploitability`
for members that joined without it, and the ratings gain a NashConv column. A ladder file
without these entries (older, or of a full game) reads as before.

On any ladder (the full games too), a member's entry may also hold a learned best
response (``learned_best_response``: the gain of an exploiter trained by ``pasur
best-response`` against it, its 95% interval, the rounds it was measured on, the budget
asked and used, the seed, the exploiter's file, the date and the library): a lower bound
on the member's exploitability. :meth:`Ladder.fill_best_response` trains them (the
training is ``train.best_response``, looked up by name: this layer never imports
``train``), :meth:`Ladder.record_best_response` records results of ``pasur best-response
--json`` made elsewhere, after checking they are of the member on the ladder's game and
rules; the ratings then gain a "learned BR gain" column.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation.match import check_agents, evaluate, seatings, setup
from agents.evaluation.results import EvalResult, json_number
from agents.evaluation.tournament import PairRunner, TournamentResult, fit_tournament
from agents.learned.exploiter import file_stem
from agents.registry import agent_label, agent_provenance, build_agent
from pasur_env.games import game_info

__all__ = ["Ladder", "LadderResult", "Member", "SCHEMA", "VERSION", "render_doc"]

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
    #: its exact exploitability on the ladder's variant (:func:`_exploitability_json`),
    #: ``None`` on a full game's ladder or when it joined without one
    exploitability: dict[str, Any] | None = None
    #: the gain of a learned best response to it (:func:`_best_response_json`), ``None``
    #: when none was recorded
    learned_best_response: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"label": self.label, "spec": self.spec, "provenance": dict(self.provenance),
               "added": self.added, "rounds": self.rounds}
        if self.exploitability is not None:  # absent, not null: older readers see no change
            out["exploitability"] = dict(self.exploitability)
        if self.learned_best_response is not None:
            out["learned_best_response"] = dict(self.learned_best_response)
        return out


#: the fields of an exploitability result kept in a member's entry (its provenance is the
#: member's own)
_EXPLOIT_FIELDS = ("nash_conv", "gains", "best_response", "value_p0", "preset", "rules",
                   "samples", "policy_read", "seed", "sizes", "seconds", "library", "date")

#: the fields of a best-response result (``pasur best-response --json``) kept in a
#: member's entry: the gain, its interval and rounds, the budget asked and used, the
#: seed, the exploiter's file, when and by which library
_BR_FIELDS = ("gain", "ci95", "rounds", "budget", "used", "seed", "exploiter", "date",
              "library")

#: said when a ladder's rules are not a variant solved exactly
_FUTURE = ("exact exploitability needs a small two-player variant of {games} (--preset mini "
           "or small); on the full games, pasur ladder best-response records a learned best "
           "response's gain, a lower bound")


def _exploitability_json(res: Any) -> dict[str, Any]:
    """The entry of :class:`agents.evaluation.exploitability.ExploitabilityResult`
    ``res`` kept in a member: NashConv, the gains and best responses by seat, the
    settings (preset, rules, samples, the agent's seed) and when it was computed."""
    data = res.to_json()
    return {k: data[k] for k in _EXPLOIT_FIELDS}


def _best_response_json(data: dict[str, Any]) -> dict[str, Any]:
    """The entry of a best-response result (its ``to_json()`` dict) kept in a member,
    as plain JSON values (what the file will read back)."""
    kept = {k: data[k] for k in _BR_FIELDS}
    kept["teacher"] = data.get("teacher")  # None: learned from scratch (or an older result)
    kept["selection"] = data.get("selection")  # trained vs the teacher alone, on validation
    kept["method"] = data.get("method", "ppo")  # "search": nothing trained (budget: particles)
    return json.loads(json.dumps(kept))


def _best_response_cell(e: dict[str, Any] | None) -> str:
    """A member's learned best response in the ratings: its gain, 95% interval and the
    learner decisions it trained on and its teacher, if any (– when it has none)."""
    if e is None:
        return "–"
    lo, hi = e["ci95"]
    if e.get("method") == "search":
        how = f"search, {int(e['budget']['particles'])} positions"
    else:
        teacher = f", from {e['teacher']}" if e.get("teacher") else ""
        how = f"{int(e['used']['decisions']):,} dec.{teacher}"
    return f"{e['gain']:+.2f} [{lo:+.2f}, {hi:+.2f}] ({how})"


def _best_response_settings(e: dict[str, Any] | None) -> str:
    """How a member's learned best response was made, for the members table: the rounds
    it was measured on, the training used (decisions, minutes), the seed and the date."""
    if e is None:
        return "–"
    used = e["used"]
    how = ("search" if e.get("method") == "search"
           else f"{int(used['decisions']):,} dec.")
    return (f"{int(e['rounds']):,}; {how}, {float(used['seconds']) / 60:.1f} min; "
            f"{e['seed']}, {str(e['date'])[:10]}")


def _number_list(a: np.ndarray) -> list[Any]:
    """A per-group array for JSON: whole numbers as ints (half wins stay floats)."""
    return [int(x) if float(x).is_integer() else float(x) for x in np.asarray(a)]


def _exploitability_cell(e: dict[str, Any] | None) -> str:
    """A member's exploitability in the members table: NashConv, then the gains of the
    best responses of player 0 and 1 and the settings (– when it has none)."""
    if e is None:
        return "–"
    gains = e.get("gains") or {}
    return (f"{_number(e['nash_conv'])} ({_number(gains.get('0'))}, {_number(gains.get('1'))};"
            f" {e.get('samples')}, {e.get('seed')})")


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


def _member(m: dict[str, Any]) -> Member:
    """A member's entry of a ladder file (one without ``exploitability`` is one that
    joined without it, or a file written before the field existed)."""
    exploit = m.get("exploitability")
    if exploit is not None and not (isinstance(exploit, dict) and "nash_conv" in exploit):
        raise ValueError(f"the exploitability of member {m['label']!r} is not a result")
    learned = m.get("learned_best_response")
    if learned is not None and not (isinstance(learned, dict)
                                    and set(_BR_FIELDS) <= learned.keys()):
        raise ValueError(f"the learned best response of member {m['label']!r} is not a result")
    return Member(label=str(m["label"]), spec=str(m["spec"]), provenance=dict(m["provenance"]),
                  added=str(m["added"]), rounds=int(m["rounds"]),
                  exploitability=None if exploit is None else dict(exploit),
                  learned_best_response=None if learned is None else dict(learned))


def _number(x: Any, width: str = ".3f") -> str:
    return "–" if x is None else format(float(x), width)


@dataclass(eq=False)
class LadderResult(TournamentResult):
    """A ladder's ratings with its members' exploitability: where at least one member has
    an exact one, the table, the markdown and the JSON rows gain a NashConv column, and
    where at least one has a learned best response, a "learned BR gain" column ("–" for a
    member without one); without any, they are the tournament's."""

    #: each member's entry (:func:`_exploitability_json`) or ``None``, by label
    exploitability: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    #: each member's learned best response (:func:`_best_response_json`) or ``None``
    learned_best_response: dict[str, dict[str, Any] | None] = field(default_factory=dict)

    def has_exploitability(self) -> bool:
        return any(v is not None for v in self.exploitability.values())

    def has_best_response(self) -> bool:
        return any(v is not None for v in self.learned_best_response.values())

    def rows(self) -> list[dict[str, Any]]:
        rows = super().rows()
        if self.has_exploitability():
            for r in rows:
                e = self.exploitability.get(r["agent"]) or {}
                r["nash_conv"] = e.get("nash_conv")
                r["best_response_gains"] = e.get("gains")
        if self.has_best_response():
            for r in rows:
                r["learned_best_response"] = self.learned_best_response.get(r["agent"])
        return rows

    def _table_rows(self) -> tuple[list[str], list[list[str]]]:
        head, body = super()._table_rows()
        rows = self.rows()
        if self.has_exploitability():
            head.append("NashConv")
            for row, r in zip(body, rows, strict=True):
                row.append(_number(r["nash_conv"]))
        if self.has_best_response():
            head.append("learned BR gain [95% CI]")
            for row, r in zip(body, rows, strict=True):
                row.append(_best_response_cell(r["learned_best_response"]))
        return head, body

    def _caption(self) -> str:
        text = super()._caption()
        if self.has_exploitability():
            text += ("; NashConv: the member's exact exploitability on the variant, points "
                     "of the round's point difference (– not computed)")
        if self.has_best_response():
            text += ("; learned BR gain: the mean point difference per round of an exploiter "
                     "trained against the member (pasur best-response; its learner decisions "
                     "and teacher in parentheses), a lower bound on its exploitability (– none)")
        return text


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
                  members=[_member(m) for m in data["members"]])
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

    def _check_members_unchanged(self, members: Sequence[Member] | None = None) -> None:
        """Refuse to play against a member (of ``members``, default all) whose source file
        changed since it joined (its SHA-256 differs): the new pairs (or exploitability)
        would not be of the agent on the ladder."""
        for m in self.members if members is None else members:
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
            run_pairs: PairRunner | None = None, exploitability: bool | None = None,
            samples: int = 1) -> list[tuple[str, str]]:
        """Add ``spec`` as a member: play it (as B) against every member (as A) on the
        ladder's deals, ``rounds`` per pair (default the ladder's: fewer rounds play a
        prefix of the same deals), and store the pairs. Returns the pairs played.

        ``run_pairs`` plays them elsewhere (as for
        :func:`agents.evaluation.tournament.tournament`, e.g. on Ray).
        ``exploitability`` (default: when the ladder's rules allow it) first computes the
        new member's exact exploitability (``samples`` calls per information set);
        ``True`` on a ladder whose rules do not allow it is a ``ValueError`` saying why."""
        label = self._check_new(spec)
        rounds = self.rounds if rounds is None else rounds
        self._check_sizes(rounds)
        self._check_members_unchanged()
        exploit = None
        if exploitability is not False:
            refusal = self.exploitability_refusal()
            if refusal is None:
                exploit = self._exploitability(spec, samples)
            elif exploitability:
                raise ValueError(refusal)
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
                                   added=when, rounds=int(rounds), exploitability=exploit))
        keys = []
        for (i, _), res in sorted(played.items()):
            key = (self.members[i].label, label)
            res.a, res.b = key
            self.pairs[key] = res
            keys.append(key)
        return keys

    # ---- exploitability ----------------------------------------------------------------
    def exploitability_refusal(self) -> str | None:
        """Why this ladder's members have no exact exploitability (one line), or ``None``
        when its rules are a variant :func:`agents.evaluation.exploitability.exploitability`
        solves (its game tree is built then, once per process: it is needed next)."""
        from agents.evaluation.exploitability import GAMES, variant_tree

        where = f"the ladder {self.path}" if self.path else "the ladder"
        title = game_info(self.game).title
        if self.game not in GAMES or self.players != 2:
            why = f"{title} with {self.players} players"
        else:
            try:
                variant_tree(self.preset, **self._variant_flags())
                return None
            except ValueError as e:
                why = f"{title} with the rules of preset {self.preset or 'classic'} ({e})"
        games = ", ".join(game_info(g).title for g in GAMES)
        return f"{where} has no exploitability: {why}; {_FUTURE.format(games=games)}"

    def _variant_flags(self) -> dict[str, Any]:
        """The rule flags as the solver's cache keys them (a JSON list as a tuple)."""
        return {k: tuple(v) if isinstance(v, list) else v for k, v in self.rule_flags.items()}

    def _exploitability(self, spec: str, samples: int) -> dict[str, Any]:
        """The exact exploitability of ``spec`` on the ladder's variant, the agent seeded
        with the ladder's seed, as a member's entry."""
        from agents.evaluation.exploitability import exploitability

        res = exploitability(spec.strip(), preset=self.preset, samples=samples, seed=self.seed,
                             **self._variant_flags())
        return _exploitability_json(res)

    def fill_exploitability(self, samples: int = 1) -> list[str]:
        """Compute the exact exploitability of every member that has none (joined without
        it, or before the field existed); returns their labels. ``ValueError`` saying why
        on a ladder whose rules do not allow it, or when such a member's source changed
        since it joined."""
        refusal = self.exploitability_refusal()
        if refusal is not None:
            raise ValueError(refusal)
        todo = [m for m in self.members if m.exploitability is None]
        self._check_members_unchanged(todo)
        for m in todo:
            m.exploitability = self._exploitability(m.spec, samples)
        return [m.label for m in todo]

    # ---- learned best responses -------------------------------------------------------
    def member(self, label: str) -> Member:
        """The member of label ``label``; ``ValueError`` naming the members otherwise."""
        for m in self.members:
            if m.label == label:
                return m
        raise ValueError(f"{label!r} is not a member of the ladder"
                         f"{f' {self.path}' if self.path else ''} (its members: "
                         f"{', '.join(self.labels()) or 'none'})")

    def _best_response_misfit(self, data: Any) -> str | None:
        """Why the best-response result ``data`` (``pasur best-response --json``) is not
        one of a member on this ladder (what differs), or ``None`` when it is."""
        if not isinstance(data, dict) or not ({*_BR_FIELDS, "agent", "game", "players",
                                                "preset", "rules", "seat"} <= data.keys()):
            return "it is not a result of pasur best-response --json"
        try:
            [float(x) for x in (data["gain"], *data["ci95"], data["used"]["decisions"])]
        except (TypeError, ValueError, KeyError):
            return "its gain, ci95 or used decisions are not numbers"
        plain = lambda x: json.loads(json.dumps(x))  # noqa: E731  (tuples as lists)
        ours = {"game": self.game, "players": self.players, "preset": self.preset,
                "rules": plain(self.rule_flags)}
        differ = [f"its {k} is {data[k]!r}, the ladder's {v!r}" for k, v in ours.items()
                  if plain(data[k]) != v]
        if data["seat"] is not None:
            differ.append(f"its agent played only seat {data['seat']}'s side (--seat), the "
                          "ladder's members play duplicate deals")
        if data["agent"] not in self.labels():
            differ.insert(0, f"its agent {data['agent']!r} is not a member (the members: "
                          f"{', '.join(self.labels()) or 'none'})")
        return "; ".join(differ) or None

    def record_best_response(self, results: Sequence[dict[str, Any]],
                             names: Sequence[str] | None = None) -> list[str]:
        """Record best-response results (``to_json()`` dicts, e.g. files of ``pasur
        best-response --json`` made elsewhere) in their members' entries, replacing an
        older one; returns the members' labels. Each must be of a member (its agent label)
        on the ladder's game, players, preset and rules, with no ``seat``; otherwise a
        ``ValueError`` naming the result (``names``, default its position) and what
        differs, before anything is recorded. A member whose source changed since it
        joined is refused too: the result would not be of the agent on the ladder."""
        names = list(names) if names is not None else [f"result {k + 1}"
                                                       for k in range(len(results))]
        where = f"the ladder {self.path}" if self.path else "the ladder"
        for name, data in zip(names, results, strict=True):
            why = self._best_response_misfit(data)
            if why is not None:
                raise ValueError(f"{name} does not fit {where}: {why}")
        labels = [str(data["agent"]) for data in results]
        if len(set(labels)) != len(labels):
            raise ValueError("two results are of the same member: record one of them")
        self._check_members_unchanged([self.member(label) for label in labels])
        for label, data in zip(labels, results, strict=True):
            self.member(label).learned_best_response = _best_response_json(data)
        return labels

    def record_best_response_files(self, paths: Sequence[str | Path]) -> list[str]:
        """:meth:`record_best_response` of the files ``paths`` (``pasur best-response
        --json``); ``ValueError`` naming a file that is not JSON."""
        results = []
        for path in paths:
            try:
                results.append(json.loads(Path(path).read_text(encoding="utf-8")))
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                raise ValueError(f"{path} is not a result of pasur best-response --json "
                                 f"(not JSON: {e})") from None
        return self.record_best_response(results, [str(p) for p in paths])

    def fill_best_response(self, labels: Sequence[str] | None = None, *,
                           minutes: float | None = None, decisions: int | None = None,
                           rounds: int = 2000, teacher: str | None = None,
                           progress: bool = False,
                           save_dir: str | Path | None = None,
                           train: Callable[..., Any] | None = None,
                           done: Callable[[Member], None] | None = None) -> list[str]:
        """Train a learned best response to each member of ``labels`` (default: every
        member that has none) with ``train.best_response.best_response`` on the ladder's
        game, rules and seed, ``rounds`` duplicate rounds, the budget ``minutes`` or
        ``decisions``, the exploiter starting from ``teacher``'s moves when given, and
        record it; returns their labels. The exploiters are saved in
        ``save_dir`` (default the folder ``<ladder>.best_response`` next to the file).
        ``train`` stands in for the training function; ``done(member)`` is called after
        each member (e.g. to save the file: a long run keeps what it finished)."""
        todo = ([m for m in self.members if m.learned_best_response is None]
                if labels is None else [self.member(label) for label in labels])
        self._check_members_unchanged(todo)
        if train is None:  # the train layer, by name: agents never imports it
            from pasur_env.core.plugins import load_object

            train = load_object("train.best_response").best_response
        if save_dir is None:
            base = self.path if self.path is not None else Path("ladder.json")
            save_dir = base.with_name(base.stem + ".best_response")
        for m in todo:
            res = train(m.spec, game=self.game, players=self.players, preset=self.preset,
                        minutes=minutes, decisions=decisions, rounds=rounds, seed=self.seed,
                        batch=self.batch, progress=progress, teacher=teacher,
                        save=Path(save_dir) / f"{file_stem(m.label)}.npz",
                        **self.rule_flags)
            self.record_best_response([res.to_json()], [f"the best response to {m.label!r}"])
            if done is not None:
                done(m)
        return [m.label for m in todo]

    # ---- ratings ---------------------------------------------------------------------
    def ratings(self, *, anchor: str | None = "random", base: float = 0.0,
                bootstrap: int = 500) -> LadderResult:
        """The fitted ladder (:func:`agents.evaluation.tournament.fit_tournament`):
        ``anchor`` (default ``random`` when it is a member, else the mean) at ``base``,
        with the members' exploitability where they have it."""
        labels = self.labels()
        if len(labels) < 2:
            raise ValueError(f"the ladder has {len(labels)} member(s); ratings need two")
        if anchor is not None and anchor not in labels:
            if anchor != "random":
                raise ValueError(f"anchor {anchor!r} is not a member ({', '.join(labels)})")
            anchor = None
        at = {lab: i for i, lab in enumerate(labels)}
        matches = {(at[a], at[b]): m for (a, b), m in self.pairs.items()}
        res = fit_tournament(labels, matches, anchor=anchor, base=base, bootstrap=bootstrap,
                             seed=self.seed, game=self.game)
        return LadderResult(**{f.name: getattr(res, f.name) for f in fields(res)},
                            exploitability={m.label: m.exploitability for m in self.members},
                            learned_best_response={m.label: m.learned_best_response
                                                   for m in self.members})

    def members_markdown(self) -> str:
        """The members as a markdown table: spec, origin, content hash, rounds, date, and
        the settings of their exploitability figures where they have them."""
        exploit = any(m.exploitability is not None for m in self.members)
        learned = any(m.learned_best_response is not None for m in self.members)
        out = ["| member | spec | origin | SHA-256 | rounds per pair | added |"
               + (" NashConv (gains p0, p1; samples, seed) |" if exploit else "")
               + (" learned BR (rounds; training; seed, date) |" if learned else ""),
               "|---|---|---|---|---|---|" + ("---|" if exploit else "")
               + ("---|" if learned else "")]
        for m in self.members:
            sha = m.provenance.get("sha256")
            out.append(f"| {m.label} | `{m.spec}` | {m.provenance.get('origin', '')} | "
                       f"{sha[:12] if sha else ''} | {m.rounds:,} | {m.added[:10]} |"
                       + (f" {_exploitability_cell(m.exploitability)} |" if exploit else "")
                       + (f" {_best_response_settings(m.learned_best_response)} |"
                          if learned else ""))
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
