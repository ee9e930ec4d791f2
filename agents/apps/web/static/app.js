// The Pasur web table: the server draws the table (SVG) and checks every move; this
// script wires clicks, forms and dialogs to its JSON API.
"use strict";

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = ["C", "D", "H", "S"];
const SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const code = (id) => RANKS[id >> 2] + SUITS[id & 3];
const pretty = (c) => c.slice(0, -1) + SYMBOL[c.slice(-1)];
const $ = (id) => document.getElementById(id);

let setup = null;    // /api/setup
let gameId = null;   // the live game
let view = null;     // its latest view
let picking = null;  // {card, options, chosen:Set} while choosing a capture
let frames = [];     // a replay's positions

async function api(method, path, body) {
  const res = await fetch(path, {
    method, headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = res.status === 204 ? null : await res.json();
  if (!res.ok) {
    const d = data && data.detail;
    const text = Array.isArray(d) ? d.map((e) => `${e.loc.slice(1).join(".")}: ${e.msg}`).join("; ")
      : (d || res.statusText);
    throw new Error(text);
  }
  return data;
}

function say(text) { $("message").textContent = text || ""; }

// ---- the start form -----------------------------------------------------------------
function fillSeats() {
  const rummy = $("game-choice").value === "persian_rummy";
  if (rummy) $("players").value = "4";
  $("players").disabled = rummy;
  $("preset").disabled = rummy;
  $("flags").hidden = rummy;
  const players = Number($("players").value);
  const seat = $("seat");
  const keep = Math.min(Number(seat.value || 0), players - 1);
  seat.innerHTML = "";
  for (let s = 0; s < players; s++) seat.add(new Option(`player_${s}${s === 0 ? " (leads)" : ""}`, s));
  seat.value = keep;
  const box = $("opponents");
  box.innerHTML = "";
  for (let s = 0; s < players; s++) {
    if (s === keep) continue;
    const label = document.createElement("label");
    const partner = players === 4 && s % 2 === keep % 2 ? " (your partner)" : "";
    label.textContent = `player_${s}${partner} `;
    const sel = document.createElement("select");
    sel.className = "opponent";
    sel.dataset.seat = s;
    const names = rummy ? setup.games.persian_rummy.offered["4"] : (setup.offered[String(players)] || setup.agents);
    for (const name of names) sel.add(new Option(name, name));
    sel.value = names.includes("heuristic") ? "heuristic" : names.includes("greedy") ? "greedy" : names[0];
    label.append(sel);
    box.append(label);
  }
}

function formBody() {
  const f = $("setup-form");
  const flags = {};
  for (const el of $("flags").querySelectorAll("input, select")) {
    const v = el.value;
    flags[el.name] = v === "true" ? true : v === "false" ? false : el.type === "number" ? Number(v) : v;
  }
  const body = {
    players: Number(f.players.value), seat: Number(f.seat.value), flags,
    opponents: [...document.querySelectorAll(".opponent")].map((s) => s.value),
  };
  if (f.preset.value) body.preset = f.preset.value;
  if (f.seed.value !== "") body.seed = Number(f.seed.value);
  return body;
}

async function start(event) {
  event.preventDefault();
  try {
    if ($("game-choice").value === "persian_rummy") {  // rummy.js draws that table
      const b = formBody();
      const form = { seat: b.seat, opponents: b.opponents.slice(0, 3), players: 4 };
      if (b.seed !== undefined) form.seed = b.seed;
      return await window.Rummy.start(form);
    }
    const res = await api("POST", "/api/games", formBody());
    gameId = res.id;
    history.replaceState(null, "", `?game=${gameId}`);
    show("game");
    $("log").innerHTML = "";
    render(res.view);
  } catch (e) { alert(`The game could not start: ${e.message}`); }
}

// ---- the game -------------------------------------------------------------------------
function show(which) {
  for (const id of ["setup", "game", "replay", "rummy-table"]) $(id).hidden = id !== which;
}

function seatName(v, s) {
  const seat = v.seats[s];
  if (s === v.seat) return "You";
  const partner = v.players === 4 && s % 2 === v.seat % 2 ? ", your partner" : "";
  return `player_${s} (${seat.name}${partner})`;
}

function describe(v, e) {
  if (e.kind === "round") return `Round ${e.round} over: ${e.sheet.map((s) => `side ${s.side} ${s.total}`).join(", ")}`;
  const you = e.seat === v.seat;
  const what = e.taken.length ? `${you ? "take" : "takes"} ${e.taken.map(pretty).join(" ")}`
    : `${you ? "lay" : "lays"} it on the table`;
  return `${seatName(v, e.seat)} ${you ? "play" : "plays"} ${pretty(e.card)} and ${what}`;
}

function render(v) {
  view = v;
  picking = null;
  $("capture").hidden = true;
  $("board").innerHTML = v.svg;
  const scores = v.seats.filter((s, i, a) => a.findIndex((t) => t.side === s.side) === i)
    .map((s) => `side ${s.side}: ${s.score}`).join(" · ");
  const turn = v.phase === "over" ? "Game over." : v.phase === "round_over" ? "Round over."
    : v.to_move === v.seat ? "Your turn: click a highlighted card." : `player_${v.to_move} to move.`;
  $("status").textContent = `${turn}  Scores (to ${v.target}): ${scores}`;
  const log = $("log");
  log.innerHTML = "";
  for (const e of v.log) {
    const li = document.createElement("li");
    li.className = e.kind;
    li.textContent = describe(v, e);
    if (e.kind === "move" && e.sur) {
      const b = document.createElement("span");
      b.className = "sur";
      b.textContent = "  SUR!";
      li.append(b);
    }
    log.append(li);
  }
  log.scrollTop = log.scrollHeight;
  for (const g of $("board").querySelectorAll("g.card")) {
    const c = code(Number(g.dataset.card));
    if (g.classList.contains("hand") && v.legal[c]) g.classList.add("legal");
    g.addEventListener("click", () => clickCard(g, c));
  }
  $("hint").disabled = !(v.phase === "play" && v.to_move === v.seat);
  $("download").hidden = v.phase !== "over";
  $("replay-this").hidden = v.phase !== "over";
  if (v.phase === "over") $("download").href = `/api/games/${gameId}/record`;
  if (v.sheet) showSheet(v);
}

function clickCard(g, c) {
  const v = view;
  if (g.classList.contains("table")) return clickTable(g, c);
  if (!g.classList.contains("hand")) return;
  if (v.phase !== "play" || v.to_move !== v.seat) return say("Refused: it is not your turn.");
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
  const chosen = [...picking.chosen].sort();
  const match = picking.options.find((o) => o.length === chosen.length && [...o].sort().every((x, i) => x === chosen[i]));
  if (!match) {
    return say(`Refused: ${chosen.map(pretty).join(" + ") || "nothing"} is not one of ${pretty(picking.card)}'s captures.`);
  }
  send(picking.card, match);
}

async function send(card, take) {
  try {
    $("hint-text").textContent = "";
    render(await api("POST", `/api/games/${gameId}/move`, { card, take, version: view.version }));
    say("");
  } catch (e) { say(`Refused: ${e.message}`); }
}

function showSheet(v) {
  const rows = [["Clubs (count)", "clubs"], ["Club points", "club_points"], ["10♦", "ten_diamonds"],
    ["2♣", "two_clubs"], ["Aces", "aces"], ["Jacks", "jacks"], ["Surs made", "surs"],
    ["Sur points", "sur_points"], ["Cards captured", "cards"], ["Round total", "total"]];
  const sides = v.sheet.map((s) => `side ${s.side} (${s.seats.map((p) => p === v.seat ? "you" : `player_${p}`).join(" + ")})`);
  let html = `<tr><th></th>${sides.map((s) => `<th>${s}</th>`).join("")}</tr>`;
  for (const [label, key] of rows) html += `<tr><td>${label}</td>${v.sheet.map((s) => `<td>${s[key]}</td>`).join("")}</tr>`;
  html += `<tr><td>Game score</td>${v.sheet.map((s) => `<td>${v.seats.find((x) => x.side === s.side).score}</td>`).join("")}</tr>`;
  $("summary-table").innerHTML = html;
  $("summary-title").textContent = v.phase === "over" ? "Game over" : "Round over";
  $("summary-continue").textContent = v.phase === "over" ? "Close" : "Next round";
  if (!$("summary").open) $("summary").showModal();
}

async function closeSheet() {
  $("summary").close();
  if (view && view.phase === "round_over") {
    try { render(await api("POST", `/api/games/${gameId}/continue`)); } catch (e) { say(e.message); }
  }
}

async function hint() {
  try {
    const h = await api("POST", `/api/games/${gameId}/hint`);
    $("hint-text").textContent = `${h.agent} would play ${pretty(h.card)}` +
      (h.take.length ? ` taking ${h.take.map(pretty).join(" + ")}` : "");
  } catch (e) { say(e.message); }
}

// ---- replays --------------------------------------------------------------------------
async function loadReplay(record) {
  $("replay-message").textContent = "";
  try {
    let res = await api("POST", "/api/replay", record);
    frames = res.frames;
    while (frames.length < res.total) {  // the server answers a page of positions at a time
      res = await api("POST", `/api/replay?start=${frames.length}`, record);
      frames = frames.concat(res.frames);
    }
    $("replay-slider").max = frames.length - 1;
    step(0);
  } catch (e) { frames = []; $("replay-board").innerHTML = ""; $("replay-message").textContent = `Refused: ${e.message}`; }
}

function step(k) {
  if (!frames.length) return;
  k = Math.max(0, Math.min(frames.length - 1, k));
  $("replay-slider").value = k;
  $("replay-board").innerHTML = frames[k].svg;
  $("replay-step").textContent = `${k} / ${frames.length - 1}: ${frames[k].caption}`;
}

async function replayThis() {
  const res = await fetch(`/api/games/${gameId}/record`);
  show("replay");
  loadReplay(await res.json());
}

// ---- wiring -----------------------------------------------------------------------------
async function init() {
  setup = await api("GET", "/api/setup");
  for (const p of setup.presets) if (p !== "classic") $("preset").add(new Option(p, p));
  fillSeats();
  $("players").addEventListener("change", fillSeats);
  $("game-choice").addEventListener("change", fillSeats);
  $("seat").addEventListener("change", fillSeats);
  $("setup-form").addEventListener("submit", start);
  $("capture-take").addEventListener("click", takeSelected);
  $("capture-cancel").addEventListener("click", () => render(view));
  $("summary-continue").addEventListener("click", closeSheet);
  $("hint").addEventListener("click", hint);
  $("replay-this").addEventListener("click", replayThis);
  $("nav-new").addEventListener("click", () => show("setup"));
  $("nav-replay").addEventListener("click", () => show("replay"));
  $("record-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    try { loadReplay(JSON.parse(await file.text())); } catch (err) { $("replay-message").textContent = `Refused: not JSON (${err.message})`; }
  });
  $("replay-slider").addEventListener("input", (e) => step(Number(e.target.value)));
  $("replay-first").addEventListener("click", () => step(0));
  $("replay-prev").addEventListener("click", () => step(Number($("replay-slider").value) - 1));
  $("replay-next").addEventListener("click", () => step(Number($("replay-slider").value) + 1));
  $("replay-last").addEventListener("click", () => step(frames.length - 1));
  const resume = new URLSearchParams(location.search).get("game");
  if (resume) {  // a game started elsewhere (or before a reload): carry on with it
    try {
      gameId = resume;
      const v = await api("GET", `/api/games/${gameId}`);
      if (v.game === "persian_rummy") window.Rummy.open(gameId, v);
      else { show("game"); render(v); }
    }
    catch (e) { show("setup"); alert(`That game is gone: ${e.message}`); }
  }
}

init();
