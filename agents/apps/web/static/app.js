// The card table's page: the server draws the table (SVG) and checks every move; this
// script wires clicks, forms and dialogs to its JSON API, paces the agents' moves (each
// event of a view is shown in turn) and keeps input off while a request or an
// animation runs, so a double click cannot play two cards.
"use strict";

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = ["C", "D", "H", "S"];
const SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const code = (id) => RANKS[id >> 2] + SUITS[id & 3];
const pretty = (c) => c.slice(0, -1) + SYMBOL[c.slice(-1)];
const cards = (cs) => cs.map(pretty).join(" ");
const $ = (id) => document.getElementById(id);
// The Pasur page is below; Persian Rummy's (rummy.js) sets `window.Rummy` with
// `start(form)`, `open(gameId, view)` and `redraw()`, and draws its table in #rummy-table.

// The server draws the table in the layout the screen has room for: `wide` beside the
// side column from 1100 px (style.css switches at the same width), else `narrow`.
const WIDE = window.matchMedia("(min-width: 1100px)");
const layout = () => (WIDE.matches ? "wide" : "narrow");
let askedLayout = null;  // the layout of the latest view asked for
function withLayout(path) {
  askedLayout = layout();
  return `${path}${path.includes("?") ? "&" : "?"}layout=${askedLayout}`;
}

let setup = null;    // /api/setup
let gameId = null;   // the live game
let view = null;     // its latest view
let picking = null;  // {card, options, chosen:Set} while choosing a capture
let busy = false;    // a request in flight or an animation running: clicks are ignored
let skipping = null; // ends the animation's current wait (the Skip button, Esc)
const replay = { record: null, frames: [], total: 0, at: 0 };
const PAGE = 40;     // replay frames fetched at a time

async function api(method, path, body) {
  const res = await fetch(path, {
    method, headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) {
    const d = data && data.detail;
    const text = Array.isArray(d) ? d.map((e) => `${e.loc.slice(1).join(".")}: ${e.msg}`).join("; ")
      : (d || res.statusText);
    const err = new Error(text);
    err.status = res.status;
    throw err;
  }
  return data;
}

function say(text) { $("message").textContent = text || ""; }

function setBusy(on) {
  busy = on;
  document.body.dataset.busy = on ? "1" : "0";
  $("board").classList.toggle("locked", on);
  for (const id of ["hint", "capture-take", "capture-cancel"]) $(id).disabled = on || (id === "hint" && !myTurn(view));
  for (const b of $("capture-options").querySelectorAll("button")) b.disabled = on;
}

const myTurn = (v) => !!v && v.phase === "play" && v.to_move === v.seat;

// ---- the start form -----------------------------------------------------------------
function offered(game, players) {
  // the agents that can play this table (the server says, per game and table size)
  const g = setup.games && setup.games[game];
  if (g && (g.offered || g.agents)) return (g.offered && g.offered[players]) || g.agents || [];
  return game === "pasur" ? (setup.offered && setup.offered[players]) || setup.agents : [];
}

function fillSeats() {
  const game = $("game-choice").value;
  const sizes = setup.games && setup.games[game] ? setup.games[game].players.map(Number) : [2, 3, 4];
  for (const o of $("players").options) o.disabled = !sizes.includes(Number(o.value));
  if (!sizes.includes(Number($("players").value))) $("players").value = String(sizes[0]);
  const players = Number($("players").value);
  const seat = $("seat");
  const keep = Math.min(Number(seat.value || 0), players - 1);
  seat.innerHTML = "";
  for (let s = 0; s < players; s++) seat.add(new Option(`player_${s}${s === 0 ? " (leads)" : ""}`, s));
  seat.value = keep;
  $("pasur-rules").hidden = game !== "pasur";
  const names = offered(game, players);
  const box = $("opponents");
  box.innerHTML = "";
  for (let s = 0; s < players; s++) {
    if (s === keep) continue;
    const label = document.createElement("label");
    const who = players === 4 && s % 2 === keep % 2 ? "your partner" : "opponent";
    label.textContent = `player_${s} (${who}) `;
    const sel = document.createElement("select");
    sel.className = "opponent";
    sel.dataset.seat = s;
    for (const name of names) sel.add(new Option(name, name));
    sel.value = names.includes("heuristic") ? "heuristic" : names[0];
    label.append(sel);
    box.append(label);
  }
}

function formBody() {
  const f = $("setup-form");
  const body = {
    players: Number(f.players.value), seat: Number(f.seat.value),
    opponents: [...document.querySelectorAll(".opponent")].map((s) => s.value),
  };
  if (f.game.value !== "pasur") body.game = f.game.value;
  if (f.game.value === "pasur") {
    body.flags = {};
    for (const el of $("flags").querySelectorAll("input, select")) {
      const v = el.value;
      body.flags[el.name] = v === "true" ? true : v === "false" ? false : el.type === "number" ? Number(v) : v;
    }
    if (f.preset.value) body.preset = f.preset.value;
  }
  // the seed as its decimal digits: a JavaScript number loses digits above 2**53
  if (f.seed.value.trim() !== "") body.seed = f.seed.value.trim();
  return body;
}

async function start(event) {
  event.preventDefault();
  try {
    const body = formBody();
    if (body.game === "persian_rummy") {  // rummy.js draws that table
      if (!window.Rummy) throw new Error("this page has no Persian Rummy table");
      const form = { seat: body.seat, opponents: body.opponents, players: body.players };
      if (body.seed !== undefined) form.seed = body.seed;
      return await window.Rummy.start(form);
    }
    const res = await api("POST", withLayout("/api/games"), body);
    gameId = res.id;
    history.replaceState(null, "", `?game=${gameId}`);
    show("game");
    $("log").innerHTML = "";
    await render(res.view);
  } catch (e) { alert(`The game could not start: ${e.message}`); }
}

// ---- words ------------------------------------------------------------------------------
function show(which) {
  for (const id of ["setup", "game", "replay", "rummy-table"]) if ($(id)) $(id).hidden = id !== which;
}

function seatName(v, s) {
  if (s === v.seat) return "You";
  const seat = v.seats[s];
  return `${seat.name} (${seat.relation || "opponent"})`;
}

function sideName(v, side) {
  const s = (v.sides || []).find((x) => x.side === side);
  return s ? s.label : `side ${side}`;
}

function describe(v, e) {
  if (e.kind === "round") {
    const left = leftoverText(v, e);
    const totals = e.sheet.map((s) => `${sideName(v, s.side)} +${s.total}`).join(", ");
    return `Round ${e.round} over.${left ? ` ${left}` : ""} ${totals}.${winnerText(v, e)}`;
  }
  const you = e.seat === v.seat;
  const what = e.taken.length ? `${you ? "take" : "takes"} ${cards(e.taken)}`
    : `${you ? "lay" : "lays"} it on the table`;
  return `${seatName(v, e.seat)} ${you ? "play" : "plays"} ${pretty(e.card)} and ${what}`;
}

function leftoverText(v, e) {
  // the cards left on the table at a round's end, and who takes them
  if (!e.leftover || !e.leftover.length) return "";
  if (e.leftover_to === null || e.leftover_to === undefined) return `${cards(e.leftover)} left uncounted (nobody captured).`;
  const who = e.leftover_to === v.seat ? "you" : seatName(v, e.leftover_to);
  return `${cards(e.leftover)} left on the table ${e.leftover.length === 1 ? "goes" : "go"} to ${who} (last capture).`;
}

function winnerText(v, e) {
  if (e.winner_side === undefined) return "";
  if (e.winner_side < 0) return " The game ends in a tie.";
  const side = (v.sides || []).find((x) => x.side === e.winner_side);
  if (!side) return ` Side ${e.winner_side} wins the game.`;
  return side.mine ? (v.players === 4 ? " Your team wins the game!" : " You win the game!")
    : ` ${side.label === "their team" ? "Their team wins" : `${side.label} wins`} the game.`;
}

function logLine(kind, label, text) {
  // a log line: its label (R1·7) and its text in two columns (a wrapped line stays in its own)
  const li = document.createElement("li");
  li.className = kind;
  const tag = document.createElement("b");
  tag.className = "label";
  tag.textContent = label || "";
  const body = document.createElement("span");
  body.className = "text";
  body.textContent = text;
  li.append(tag, body);
  return li;
}

function logItem(v, e) {
  const li = logLine(e.kind, e.label, describe(v, e));
  if (e.kind === "move" && e.sur) {
    const b = document.createElement("span");
    b.className = "sur";
    b.textContent = " SUR!";
    li.lastChild.append(b);
  }
  return li;
}

// ---- the table ------------------------------------------------------------------------------
let skipAll = false; // the person asked to see the table now

function wait(ms) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    skipping = () => { clearTimeout(t); resolve(); };
  });
}

async function animate(v) {
  // each event in turn: the table after it and a line saying what happened
  const pace = Number($("pace").value);
  const events = (v.events || []).filter((e) => e.svg);
  if (!pace || !events.length) return;
  skipAll = false;
  $("banner").classList.remove("idle");
  $("status").textContent = "The moves since yours, one by one (Skip or Esc: the table now).";
  for (const e of events) {
    $("board").innerHTML = e.svg;
    $("banner-text").textContent = `${e.label || ""}  ${describe(v, e)}${e.sur ? "  SUR!" : ""}`;
    await wait(e.seat === v.seat && e.kind === "move" ? pace / 2 : pace);
    if (skipAll) break;
  }
  skipping = null;
  $("banner").classList.add("idle");
}

function skip() {
  skipAll = true;
  if (skipping) skipping();
}

async function render(v) {
  setBusy(true);
  try {
    await animate(v);
    draw(v);
  } finally { setBusy(false); }
}

function draw(v) {
  view = v;
  picking = null;
  $("capture").hidden = true;
  $("board").innerHTML = v.svg;
  const scores = (v.sides || []).map((s) => `<span class="${s.mine ? "mine" : "theirs"}">${s.label}: ${s.score}</span>`).join(" · ");
  $("scores").innerHTML = `${scores} <span class="target">(to ${v.target})</span>`;
  const end = v.log.length ? v.log[v.log.length - 1] : null;
  const turn = v.phase === "over" ? `Game over.${end ? winnerText(v, end) : ""}`
    : v.phase === "round_over" ? "Round over: see the summary."
      : myTurn(v) ? "Your turn: click a highlighted card." : `${seatName(v, v.to_move)} to move.`;
  $("status").textContent = turn;
  const log = $("log");
  log.innerHTML = "";
  for (const e of v.log) log.append(logItem(v, e));
  log.scrollTop = log.scrollHeight;
  for (const g of $("board").querySelectorAll("g.card")) {
    const c = code(Number(g.dataset.card));
    if (g.classList.contains("hand") && v.legal[c]) g.classList.add("legal");
    g.addEventListener("click", () => clickCard(g, c));
  }
  $("hint").disabled = !myTurn(v);
  $("download").hidden = v.phase !== "over";
  $("replay-this").hidden = v.phase !== "over";
  if (v.phase === "over") $("download").href = `/api/games/${gameId}/record`;
  if (v.sheet) showSheet(v);
}

function clickCard(g, c) {
  if (busy) return;
  const v = view;
  if (g.classList.contains("table")) return clickTable(g, c);
  if (!g.classList.contains("hand")) return;
  if (!myTurn(v)) return say("Refused: it is not your turn.");
  if (!v.legal[c]) return say(`Refused: ${pretty(c)} cannot be played now.`);
  say("");
  const options = v.legal[c];
  if (options.length <= 1) return send(c, options[0] || []);
  picking = { card: c, options, chosen: new Set() };
  for (const h of $("board").querySelectorAll("g.card.hand")) h.classList.remove("active");
  g.classList.add("active");
  for (const t of $("board").querySelectorAll("g.card.table")) {
    if (options.some((o) => o.includes(code(Number(t.dataset.card))))) t.classList.add("pick");
  }
  $("capture-text").textContent = `${pretty(c)} can take: click the table cards of one option, or choose it: `;
  const box = $("capture-options");
  box.innerHTML = "";
  options.forEach((o) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "option";
    b.textContent = o.map(pretty).join(" + ");
    b.addEventListener("click", () => send(c, o));
    box.append(b);
  });
  $("capture").hidden = false;
}

function clickTable(g, c) {
  if (!picking) return say("Click one of your highlighted cards first.");
  if (!picking.options.some((o) => o.includes(c))) {
    return say(`Refused: ${pretty(picking.card)} cannot take ${pretty(c)}.`);
  }
  if (picking.chosen.has(c)) { picking.chosen.delete(c); g.classList.remove("selected"); }
  else { picking.chosen.add(c); g.classList.add("selected"); }
  say("");
}

function takeSelected() {
  if (busy || !picking) return;
  const chosen = [...picking.chosen].sort();
  const match = picking.options.find((o) => o.length === chosen.length && [...o].sort().every((x, i) => x === chosen[i]));
  if (!match) {
    return say(`Refused: ${chosen.map(pretty).join(" + ") || "nothing"} is not one of ${pretty(picking.card)}'s captures.`);
  }
  send(picking.card, match);
}

async function request(method, path, body) {
  // one request at a time; the answer's events are animated before input comes back
  if (busy) return;
  setBusy(true);
  let next = null;
  const was = $("status").textContent;
  $("status").textContent = "Waiting for the table…";
  try {
    next = await api(method, path, body);
    say("");
  } catch (e) {
    if (e.status === 409) {  // made against an older state: show the current one
      say(`Refused: ${e.message} The table below is the current one.`);
      try { next = await api("GET", withLayout(`/api/games/${gameId}`)); } catch (e2) { say(e2.message); }
    } else if (e.status === 424) {
      say(`An agent failed, your move was undone: ${e.message}`);
    } else say(`Refused: ${e.message}`);
  } finally { setBusy(false); }
  if (next) await render(next);
  else $("status").textContent = was;
}

function send(card, take) {
  $("hint-text").textContent = "";
  const body = { card, take };
  if (view && view.version !== undefined) body.version = view.version;
  return request("POST", withLayout(`/api/games/${gameId}/move`), body);
}

function showSheet(v) {
  const rows = [["Clubs (count)", "clubs"], ["Club points", "club_points"], ["10♦", "ten_diamonds"],
    ["2♣", "two_clubs"], ["Aces", "aces"], ["Jacks", "jacks"], ["Surs made", "surs"],
    ["Sur points", "sur_points"], ["Cards captured", "cards"], ["Round total", "total"]];
  const head = v.sheet.map((s) => `${sideName(v, s.side)}${v.players === 4 ? `<br><small>${s.seats.map((p) => p === v.seat ? "you" : v.seats[p].name).join(" + ")}</small>` : ""}`);
  let html = `<tr><th></th>${head.map((s) => `<th>${s}</th>`).join("")}</tr>`;
  for (const [label, key] of rows) html += `<tr><td>${label}</td>${v.sheet.map((s) => `<td>${s[key]}</td>`).join("")}</tr>`;
  html += `<tr class="total"><td>Game score</td>${v.sheet.map((s) => `<td>${v.sides.find((x) => x.side === s.side).score}</td>`).join("")}</tr>`;
  $("summary-table").innerHTML = html;
  const end = [...v.log].reverse().find((e) => e.kind === "round");
  const over = v.phase === "over";
  $("summary-title").textContent = over ? "Game over" : `Round ${end ? end.round : ""} over`;
  $("summary-winner").textContent = over && end ? winnerText(v, end).trim() : "";
  $("summary-leftover").textContent = end ? leftoverText(v, end) : "";
  $("summary-continue").textContent = over ? "Close" : "Next round";
  openSheet($("summary"));
}

function openSheet(dialog) {
  // the round's summary opens in the page's flow, beside (or under) the board, not over it
  if (dialog.open) return;
  dialog.show();
  dialog.scrollIntoView({ block: "nearest" });
}

async function closeSheet() {
  $("summary").close();
  if (view && view.phase === "round_over") {
    await request("POST", withLayout(`/api/games/${gameId}/continue`), view.version !== undefined ? { version: view.version } : undefined);
  }
}

async function hint() {
  if (busy) return;
  setBusy(true);
  try {
    const h = await api("POST", `/api/games/${gameId}/hint`);
    $("hint-text").textContent = `${h.agent} would play ${pretty(h.card)}` +
      (h.take.length ? ` taking ${h.take.map(pretty).join(" + ")}` : "");
    const mark = (sel, c) => { const g = $("board").querySelector(`${sel}[data-card='${SUITS.length * RANKS.indexOf(c.slice(0, -1)) + SUITS.indexOf(c.slice(-1))}']`); if (g) g.classList.add("hinted"); };
    mark("g.card.hand", h.card);
    for (const c of h.take) mark("g.card.table", c);
  } catch (e) { say(e.message); } finally { setBusy(false); }
}

// ---- replays --------------------------------------------------------------------------
async function fetchFrames(k) {
  // the frames around k, a page at a time (all at once from a server that does not page)
  const start = Math.floor(k / PAGE) * PAGE;
  const res = await api("POST", `/api/replay?start=${start}&count=${PAGE}`, replay.record);
  const first = res.start !== undefined ? res.start : (res.frames.length > PAGE ? 0 : start);
  res.frames.forEach((f, i) => { replay.frames[first + i] = f; });
  replay.total = res.total !== undefined ? res.total : Math.max(replay.total, first + res.frames.length);
  if (res.players) replay.players = res.players;
  return res;
}

async function loadReplay(record) {
  $("replay-message").textContent = "";
  Object.assign(replay, { record, frames: [], total: 0, at: 0, players: null });
  try {
    await fetchFrames(0);
    $("replay-slider").max = replay.total - 1;
    await step(0);
  } catch (e) {
    replay.record = null;
    $("replay-board").innerHTML = "";
    $("replay-caption").textContent = "";
    $("replay-message").textContent = `Refused: ${e.message}`;
  }
}

function caption(text) {
  // "move 3: player_1 PLAY 7H" in words: the seat's name, the cards with their suits
  const names = replay.players || [];
  return text.replace(/\b(10|[2-9AJQK])([CDHS])\b/g, (m) => pretty(m))
    .replace(/\bplayer_(\d)\b/g, (m, s) => (names[s] ? `${names[s]} (${m})` : m))
    .replace(/\bPLAY\b/g, "plays").replace(/\bTAKE\b/g, "takes");
}

async function step(k) {
  if (!replay.record || !replay.total) return;
  k = Math.max(0, Math.min(replay.total - 1, k));
  if (!replay.frames[k]) {
    try { await fetchFrames(k); } catch (e) { $("replay-message").textContent = `Refused: ${e.message}`; return; }
  }
  replay.at = k;
  $("replay-slider").value = k;
  $("replay-board").innerHTML = replay.frames[k].svg;
  $("replay-step").textContent = `${k} / ${replay.total - 1}`;
  $("replay-caption").textContent = caption(replay.frames[k].caption);
}

async function replayThis() {
  const res = await fetch(`/api/games/${gameId}/record`);
  show("replay");
  loadReplay(await res.json());
}

function keys(e) {
  if (!$("replay").hidden) {
    if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
    const to = { ArrowLeft: replay.at - 1, ArrowRight: replay.at + 1, Home: 0, End: replay.total - 1 }[e.key];
    if (to !== undefined) { e.preventDefault(); step(to); }
  } else if (e.key === "Escape" && skipping) skip();
}

let relayoutTimer = null;
function relayout() {
  // the screen crossed the layouts' width: the same table, drawn for the new one (once
  // the width has settled, and only if the table shown was drawn for the other layout)
  clearTimeout(relayoutTimer);
  relayoutTimer = setTimeout(async () => {
    if (layout() === askedLayout) return;
    if (!$("rummy-table").hidden && window.Rummy) return window.Rummy.redraw();
    if ($("game").hidden || !gameId || busy) return;
    try { draw(await api("GET", withLayout(`/api/games/${gameId}`))); } catch (e) { say(e.message); }
  }, 250);
}

// ---- wiring -----------------------------------------------------------------------------
async function init() {
  setup = await api("GET", "/api/setup");
  for (const p of setup.presets) if (p !== "classic") $("preset").add(new Option(p, p));
  for (const o of $("game-choice").options) {  // the games this server has tables for
    const g = setup.games && setup.games[o.value];
    if (setup.games && !g) o.disabled = true;
    if (g && g.title) o.textContent = g.title;
  }
  const pace = localStorage.getItem("pace");
  if (pace !== null) $("pace").value = pace;
  fillSeats();
  $("start").disabled = false;  // the form is ready
  for (const id of ["players", "seat", "game-choice"]) $(id).addEventListener("change", fillSeats);
  $("setup-form").addEventListener("submit", start);
  $("capture-take").addEventListener("click", takeSelected);
  $("capture-cancel").addEventListener("click", () => { if (!busy) draw(view); });
  $("summary-continue").addEventListener("click", closeSheet);
  $("hint").addEventListener("click", hint);
  $("skip").addEventListener("click", skip);
  $("stage").addEventListener("click", () => { if (skipping) skip(); });
  $("pace").addEventListener("change", (e) => localStorage.setItem("pace", e.target.value));
  $("replay-this").addEventListener("click", replayThis);
  $("nav-new").addEventListener("click", () => show("setup"));
  $("nav-replay").addEventListener("click", () => show("replay"));
  document.addEventListener("keydown", keys);
  WIDE.addEventListener("change", relayout);
  $("record-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    try { loadReplay(JSON.parse(await file.text())); } catch (err) { $("replay-message").textContent = `Refused: not JSON (${err.message})`; }
  });
  $("replay-slider").addEventListener("input", (e) => step(Number(e.target.value)));
  $("replay-first").addEventListener("click", () => step(0));
  $("replay-prev").addEventListener("click", () => step(replay.at - 1));
  $("replay-next").addEventListener("click", () => step(replay.at + 1));
  $("replay-last").addEventListener("click", () => step(replay.total - 1));
  const resume = new URLSearchParams(location.search).get("game");
  if (resume) {  // a game started elsewhere (or before a reload): carry on with it
    try {
      gameId = resume;
      const v = await api("GET", withLayout(`/api/games/${gameId}`));
      if (v.game === "persian_rummy" && window.Rummy) window.Rummy.open(gameId, v);
      else { show("game"); await render(v); }
    } catch (e) { show("setup"); alert(`That game is gone: ${e.message}`); }
  }
}

init();
