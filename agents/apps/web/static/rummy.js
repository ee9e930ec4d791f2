// Persian Rummy at the web table. The server checks every action (one engine action per
// request, with the view's version) and draws the table like Pasur's (the view's `svg`,
// in the layout app.js's `withLayout` asks for); this script turns clicks on the drawing
// into actions: the stock or a card of the discard pile to draw, a hand card then
// *Add to meld* and *Meld* (while a meld is being built a click adds the card), a hand
// card then a meld to lay it off, a hand card then *Discard*. Uses app.js's globals
// `api`, `$`, `show`, `logLine`, `openSheet`, `withLayout` and `loadReplay`. The agents'
// moves are shown one by one, each event with the table after it (`?pace=MS`, default
// 700 ms; Skip, Esc or a click on the table shows the table now); input is locked
// while a request or the pacing runs.
"use strict";

const Rummy = (() => {
  const SYM = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const PACE = Number(new URLSearchParams(location.search).get("pace") ?? 700);
  let gid = null, view = null, busy = false, selected = null, hinted = null, skipping = null;

  const pretty = (c) => (c.startsWith("JK") ? "JK" : c.slice(0, -1) + SYM[c.slice(-1)]);
  const prettyText = (t) => t.replace(/\b(10|[2-9AJQK])([CDHS])\b/g, (m) => pretty(m));
  const cards = (cs) => cs.map(pretty).join(" ");

  // ---- words: a seat is its agent and its role, where it sits on the drawn table ---------
  function who(v, s) {
    if (s === v.seat) return "You";
    const role = { 1: "opponent, left", 2: "partner", 3: "opponent, right" }[(s - v.seat + 4) % 4];
    return `${v.names[s]} (${role})`;
  }

  function describe(v, e) {
    // an event of the log in words (the server's data; the person's own drawn card only)
    const you = e.seat === v.seat;
    const verb = (w) => (you ? w : `${w}${w.endsWith("s") ? "es" : "s"}`);
    if (e.kind === "round") {
      const s = e.sheet;
      const out = s.went_out === null ? "four passes in a row with the stock empty" : `${who(v, s.went_out)} went out`;
      const pts = s.teams.map((t) => `${t.yours ? "your team" : "their team"} ${t.total >= 0 ? "+" : ""}${t.total}`);
      return `Round ${e.round} over: ${out}; ${pts.join(", ")}`;
    }
    const w = who(v, e.seat);
    switch (e.what) {
      case "draw": return `${w} ${verb("draw")} from the stock${you && e.card ? ` (${pretty(e.card)})` : ""}`;
      case "pass": return `${w} ${verb("pass")} (the stock is empty)`;
      case "take": return `${w} ${verb("take")} ${cards(e.cards)} from the pile (must meld ${pretty(e.card)})`;
      case "meld": return `${w} ${verb("meld")} ${cards(e.cards)}`;
      case "lay_off": return `${w} ${verb("lay")} off ${pretty(e.card)} on meld ${e.meld + 1}`;
      case "discard": return `${w} ${verb("discard")} ${pretty(e.card)}`;
      default: return prettyText(e.text);
    }
  }

  function build() {
    const root = $("rummy-table");
    if (root.dataset.built) return;
    root.dataset.built = "1";
    root.innerHTML = `
      <div class="table-top">
        <div id="r-scores"></div>
        <div id="r-status" role="status"></div>
        <div id="r-message" role="alert"></div>
        <div id="r-obligation" hidden></div>
      </div>
      <div class="stage" id="r-stage">
        <div id="r-banner" class="banner idle"><span id="r-banner-text"></span>
          <button id="r-skip" type="button" title="Show the table now (Esc)">Skip</button></div>
        <div id="r-board" class="board"></div>
        <div class="row r-actions">
          <button id="r-pass" type="button" hidden>Pass</button>
          <button id="r-pick" type="button">Add to meld</button>
          <button id="r-meld" type="button">Meld</button>
          <button id="r-discard" type="button">Discard</button>
          <button id="r-hint" type="button">Hint</button>
          <span id="r-hint-text"></span>
        </div>
      </div>
      <div class="side">
        <dialog id="r-summary" class="summary"><h2 id="r-summary-title"></h2><p id="r-winner"></p>
          <table id="r-summary-table"></table>
          <button id="r-summary-continue" type="button">Next round</button></dialog>
        <div class="row">
          <a id="r-download" hidden download="persian_rummy-game.json">Download the record</a>
          <button id="r-replay" type="button" hidden>Replay this game</button>
        </div>
        <p class="r-help">Draw: click the stock, or a gold-ringed card of the pile (you take every
          card above it too, and must meld it this turn). Then click a card of your hand and
          <b>Add to meld</b> (lowest card first; while a meld is being built a click adds the card)
          and <b>Meld</b>, or click a meld to lay the card off on it, or <b>Discard</b> to end your
          turn. The bar under a melded card says whose points it is.</p>
        <h3>Moves</h3><ul id="r-log" class="log"></ul>
      </div>`;
    $("r-pass").addEventListener("click", () => act("PASS"));
    $("r-pick").addEventListener("click", () => selected && act(`PICK ${selected}`));
    $("r-meld").addEventListener("click", () => act("MELD"));
    $("r-discard").addEventListener("click", () => selected && act(`DISCARD ${selected}`));
    $("r-hint").addEventListener("click", hint);
    $("r-skip").addEventListener("click", skip);
    $("r-stage").addEventListener("click", () => { if (skipping) skip(); });
    document.addEventListener("keydown", (e) => { if (e.key === "Escape" && skipping) skip(); });
    $("r-replay").addEventListener("click", async () => {
      const rec = await api("GET", `/api/games/${gid}/record`);
      show("replay");
      loadReplay(rec);  // app.js's replay viewer takes both games' records
    });
    $("r-summary-continue").addEventListener("click", closeSheet);
  }

  function say(text) { $("r-message").textContent = text || ""; }

  // ---- requests: one at a time, each with the version it was made against -------------
  async function request(method, path, body) {
    if (busy) return null;
    busy = true;
    lock();
    try {
      const v = await api(method, withLayout(path), body);
      if (v && v.events) await pace(v, v.events);
      if (v) { view = v; selected = null; }
      return v;
    } catch (e) {
      try { view = await api("GET", withLayout(`/api/games/${gid}`)); } catch (_) { /* keep the old view */ }
      say(`Refused: ${e.message}`);
      return null;
    } finally {
      busy = false;
      if (view) render(view);
    }
  }

  function lock() {
    document.body.dataset.busy = "1";
    $("r-board").classList.add("locked");
    for (const b of $("rummy-table").querySelectorAll("button")) {
      if (!["r-summary-continue", "r-skip"].includes(b.id)) b.disabled = true;
    }
  }

  function wait(ms) {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      skipping = () => { clearTimeout(t); resolve(); };
    });
  }

  function skip() { if (skipping) { skipping(); skipping = "all"; } }

  async function pace(v, events) {
    // the agents' moves one by one: the table after each, and a line saying what it was
    const shown = events.filter((e) => e.svg && e.seat !== v.seat);
    if (PACE <= 0 || !shown.length) return;
    $("r-banner").classList.remove("idle");
    $("r-board").classList.remove("locked");  // a click on the table skips
    for (const e of shown) {
      $("r-board").innerHTML = e.svg;
      $("r-banner-text").textContent = `R${e.round}·${e.move}  ${describe(v, e)}`;
      await wait(PACE);
      if (skipping === "all") break;
    }
    skipping = null;
    $("r-banner").classList.add("idle");
  }

  async function act(action) {
    if (!view) return;
    say("");
    $("r-hint-text").textContent = "";
    hinted = null;
    await request("POST", `/api/games/${gid}/move`, { action, version: view.version });
  }

  async function layOff(card, meld) {
    if (!view) return;
    const m = view.legal.lay_off[card];
    if (!m || !m.includes(meld)) return say(`Refused: ${pretty(card)} does not extend meld ${meld + 1}.`);
    await act(`LAY_OFF ${card}`);
    if (view.step === "choose" && view.legal.targets.includes(meld)) await act(`TARGET ${meld}`);
  }

  // ---- the drawn table and the words around it ----------------------------------------
  function board(v) {
    // the server's drawing, its parts wired to clicks and marked for the current choice
    const root = $("r-board");
    root.innerHTML = v.svg;
    const L = v.legal;
    for (const g of root.querySelectorAll("g.card.hand")) {
      const c = g.dataset.card;
      if (c === selected) g.classList.add("selected");
      if (hinted && hinted.endsWith(` ${c}`) && !hinted.startsWith("TAKE")) g.classList.add("hinted");
      g.addEventListener("click", () => clickHand(c));
    }
    for (const g of root.querySelectorAll("g.card.pile")) {
      if (hinted === `TAKE ${g.dataset.card}`) g.classList.add("hinted");
      g.addEventListener("click", () => clickPile(g.dataset.card));
    }
    for (const g of root.querySelectorAll("g.stock")) {
      if (hinted === "DRAW_STOCK") g.classList.add("hinted");
      g.addEventListener("click", clickStock);
    }
    for (const g of root.querySelectorAll("g.meld")) {
      const m = Number(g.dataset.meld);
      if (v.step === "choose" ? L.targets.includes(m) : selected && (L.lay_off[selected] || []).includes(m)) {
        g.classList.add("can-lay");
      }
      if (hinted === `TARGET ${m}`) g.classList.add("hinted");
      g.addEventListener("click", () => clickMeld(m));
    }
  }

  function render(v) {
    view = v;
    const mine = v.phase === "play" && v.to_move === v.seat;
    const L = v.legal;
    if (selected && !v.hand.includes(selected)) selected = null;
    const my = v.seat % 2;
    const score = (t) => `${v.scores[t]} (+${v.on_table[t]} on the table)`;
    $("r-scores").innerHTML = `<span class="mine">your team: ${score(my)}</span> · ` +
      `<span class="theirs">their team: ${score(1 - my)}</span> <span class="target">deal ${v.deal} of ${v.deals}</span>`;
    $("r-status").textContent = v.phase === "over" ? `Game over. ${v.winner ? v.winner.text : ""}`
      : v.phase === "round_over" ? "Round over: see the summary."
      : mine ? { draw: "Your turn: draw from the stock or take from the pile.",
                 meld: "Your turn: meld, lay off, or discard to end it.",
                 building: "Building a meld: add cards (lowest first), then Meld.",
                 choose: "Click the meld to lay your card off on." }[v.step]
      : `${who(v, v.to_move)} to move.`;
    board(v);
    $("r-meld").classList.toggle("hinted", hinted === "MELD");
    $("r-pass").classList.toggle("hinted", hinted === "PASS");
    $("r-pass").hidden = !L.pass;
    $("r-pass").disabled = !(mine && L.pass);
    const ob = $("r-obligation");
    ob.hidden = !(v.target || v.pending || v.picked.length);
    ob.textContent = [v.target ? `You must meld ${pretty(v.target)} (taken from the pile) before anything else.` : "",
      v.picked.length ? `Picked: ${v.picked.map(pretty).join(" ")}` : "",
      v.pending ? `Laying off ${pretty(v.pending)}: click the meld.` : ""].filter(Boolean).join("  ");
    $("r-pick").disabled = !(mine && selected && L.pick.includes(selected));
    $("r-meld").disabled = !(mine && L.meld);
    $("r-discard").disabled = !(mine && selected && L.discard.includes(selected));
    $("r-hint").disabled = !mine;
    $("r-download").hidden = v.phase !== "over";
    $("r-replay").hidden = v.phase !== "over";
    $("r-replay").disabled = false;
    if (v.phase === "over") $("r-download").href = `/api/games/${gid}/record`;
    drawLog(v);
    if (v.sheet && (v.phase !== "play")) showSheet(v);
    if (busy) lock();
    else {
      $("r-board").classList.remove("locked");
      document.body.dataset.busy = "0";
    }
  }

  function drawLog(v) {
    // numbered like Pasur's: R1·7 for a move, R1·end for a round's end
    const log = $("r-log");
    log.replaceChildren(...v.log.map((e) => logLine(e.kind, e.kind === "round" ? `R${e.round}·end`
      : `R${e.round}·${e.move}`, describe(v, e))));
    log.scrollTop = log.scrollHeight;
  }

  // ---- clicks -------------------------------------------------------------------------
  function myTurn() {
    if (busy || !view) return false;
    if (view.phase !== "play" || view.to_move !== view.seat) { say("Refused: it is not your turn."); return false; }
    return true;
  }

  function clickStock() {
    if (!myTurn()) return;
    if (view.step !== "draw") return say("Refused: you have drawn this turn already.");
    if (!view.legal.stock) return say("Refused: the stock is empty: take from the pile, or pass.");
    act("DRAW_STOCK");
  }

  function clickPile(c) {
    if (!myTurn()) return;
    if (view.step !== "draw") return say("Refused: you have drawn this turn already.");
    if (!view.legal.take.includes(c)) return say(`Refused: ${pretty(c)} could not be melded at once, so it cannot be taken.`);
    act(`TAKE ${c}`);
  }

  function clickHand(c) {
    if (!myTurn()) return;
    if (view.step === "draw") return say("Draw first: the stock, or a gold-ringed card of the pile.");
    if (view.step === "building") {
      if (!view.legal.pick.includes(c)) return say(`Refused: ${pretty(c)} does not fit the meld being built.`);
      return act(`PICK ${c}`);
    }
    selected = selected === c ? null : c;
    say("");
    render(view);
  }

  function clickMeld(m) {
    if (!myTurn()) return;
    if (view.step === "choose") return act(`TARGET ${m}`);
    if (!selected) return say("Click a card of your hand first, then the meld to lay it off on.");
    layOff(selected, m);
  }

  async function hint() {
    if (!myTurn()) return;
    busy = true;
    lock();
    try {
      const h = await api("POST", `/api/games/${gid}/hint`);
      hinted = h.action;  // drawn on the board: the stock, a pile card, a hand card, a meld or Meld
      $("r-hint-text").textContent = `${h.agent} would play ${prettyText(h.action)}` +
        (h.turn.length > 1 ? ` (then ${h.turn.slice(1).map(prettyText).join(", ")})` : "");
    } catch (e) { say(e.message); } finally { busy = false; render(view); }
  }

  // ---- the round's score sheet -----------------------------------------------------------
  function showSheet(v) {
    const teams = v.sheet.teams;
    const name = (s) => (s === v.seat ? "you" : v.names[s]);
    const head = (t) => `${t.yours ? "Your team" : "Their team"}<br><small>${t.seats.map(name).join(" + ")}</small>`;
    const rows = [["Cards melded", "melded"], ["Four-sets bonus", "four_sets"], ["Going out", "going_out"],
      ["Left in hand", "in_hand"], ["Round total", "total"], ["Game score", "score"]];
    let html = `<tr><th></th>${teams.map((t) => `<th>${head(t)}</th>`).join("")}</tr>`;
    for (const [label, key] of rows) html += `<tr><td>${label}</td>${teams.map((t) => `<td>${t[key]}</td>`).join("")}</tr>`;
    html += `<tr><td>Cards left</td>${teams.map((t) => `<td>${t.left.map(pretty).join(" ") || "-"}</td>`).join("")}</tr>`;
    $("r-summary-table").innerHTML = html;
    const out = v.sheet.went_out;
    $("r-summary-title").textContent = `Round ${v.sheet.round} over` +
      (out === null ? ": four passes with the stock empty" : `: ${out === v.seat ? "you" : who(v, out)} went out`);
    $("r-winner").textContent = v.phase === "over" && v.winner ? v.winner.text : "";
    $("r-summary-continue").textContent = v.phase === "over" ? "Close" : "Next round";
    openSheet($("r-summary"));
  }

  async function closeSheet() {
    $("r-summary").close();
    if (view && view.phase === "round_over") {
      await request("POST", `/api/games/${gid}/continue`);
    }
  }

  // ---- entry points (app.js) ------------------------------------------------------------
  function open(id, v) {
    build();
    gid = id;
    selected = null;
    show("rummy-table");
    render(v);
  }

  async function redraw() {
    // the layout changed (app.js): the same table, drawn for the new width
    if (!gid || busy) return;
    try { render(await api("GET", withLayout(`/api/games/${gid}`))); } catch (e) { say(e.message); }
  }

  async function start(form) {
    const res = await api("POST", withLayout("/api/games"), { ...form, game: "persian_rummy" });
    history.replaceState(null, "", `?game=${res.id}${PACE !== 700 ? `&pace=${PACE}` : ""}`);
    build();
    gid = res.id;
    show("rummy-table");
    busy = true;
    lock();
    try { await pace(res.view, res.view.events || []); } finally { busy = false; render(res.view); }
  }

  return { open, start, redraw };
})();
window.Rummy = Rummy;
