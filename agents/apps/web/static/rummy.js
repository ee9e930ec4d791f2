// Persian Rummy at the web table. The server checks every action (one engine action per
// request, with the view's version) and sends the view; this script draws it in HTML and
// turns clicks into actions: draw from the stock or take from the discard pile, pick
// cards into a meld then MELD, lay a card off on a meld (click the card, then the meld),
// discard. Uses app.js's globals `api`, `$` and `show`. Agents' moves are shown one by
// one (`?pace=MS`, default 700 ms); input is locked while a request or the pacing runs.
"use strict";

const Rummy = (() => {
  const SYM = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const PACE = Number(new URLSearchParams(location.search).get("pace") ?? 700);
  let gid = null, view = null, busy = false, selected = null, hinted = null;

  const pretty = (c) => (c.startsWith("JK") ? "JK" : c.slice(0, -1) + SYM[c.slice(-1)]);
  const red = (c) => !c.startsWith("JK") && "DH".includes(c.slice(-1));
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  function cardEl(c, where, credit) {
    const b = el("button", `rcard ${where}${red(c) ? " red" : ""}${c.startsWith("JK") ? " joker" : ""}`, pretty(c));
    b.type = "button";
    b.dataset.card = c;
    if (credit) b.classList.add(`credit-${credit}`);
    return b;
  }

  function build() {
    const root = $("rummy-table");
    if (root.dataset.built) return;
    root.dataset.built = "1";
    root.innerHTML = `
      <div id="r-status" role="status"></div>
      <div id="r-message" role="alert"></div>
      <div id="r-last" aria-live="polite"></div>
      <div class="r-table">
        <div class="r-seat r-top" id="r-seat-top"></div>
        <div class="r-seat r-left" id="r-seat-left"></div>
        <div class="r-center">
          <div class="r-draw">
            <button id="r-stock" type="button" class="r-stock">Stock</button>
            <button id="r-pass" type="button" hidden>Pass</button>
          </div>
          <div class="r-pile-box"><span class="r-label">Discard pile (bottom → top)</span>
            <div id="r-pile" class="r-cards"></div></div>
          <div class="r-melds-box">
            <div><span class="r-label">Your team's melds</span><div id="r-melds-mine" class="r-melds"></div></div>
            <div><span class="r-label">Opponents' melds</span><div id="r-melds-theirs" class="r-melds"></div></div>
          </div>
        </div>
        <div class="r-seat r-right" id="r-seat-right"></div>
      </div>
      <p class="r-help">Under each melded card: <span class="credit-mine-key">blue</span> counts for
        your team, <span class="credit-theirs-key">orange</span> for the opponents.</p>
      <div id="r-obligation" hidden></div>
      <div class="r-seat r-bottom"><span class="r-label" id="r-you">Your hand</span>
        <div id="r-hand" class="r-cards"></div></div>
      <div class="row">
        <button id="r-pick" type="button">Add to meld</button>
        <button id="r-meld" type="button">Meld</button>
        <button id="r-discard" type="button">Discard</button>
        <button id="r-hint" type="button">Hint</button>
        <span id="r-hint-text"></span>
        <a id="r-download" hidden download="persian_rummy-game.json">Download the record</a>
        <button id="r-replay" type="button" hidden>Replay this game</button>
      </div>
      <p class="r-help">Draw from the stock or take a card of the pile (with every card above it: you must
        meld it this turn). Click a card of your hand, then <b>Add to meld</b> (lowest card first) and
        <b>Meld</b>, or click a highlighted meld to lay it off, or <b>Discard</b> to end your turn.</p>
      <h3>Moves</h3><div id="r-log"></div>
      <dialog id="r-summary"><h2 id="r-summary-title"></h2><p id="r-winner"></p>
        <table id="r-summary-table"></table>
        <button id="r-summary-continue" type="button">Next round</button></dialog>`;
    $("r-stock").addEventListener("click", () => act("DRAW_STOCK"));
    $("r-pass").addEventListener("click", () => act("PASS"));
    $("r-pick").addEventListener("click", () => selected && act(`PICK ${selected}`));
    $("r-meld").addEventListener("click", () => act("MELD"));
    $("r-discard").addEventListener("click", () => selected && act(`DISCARD ${selected}`));
    $("r-hint").addEventListener("click", hint);
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
      const v = await api(method, path, body);
      if (v && v.events) await pace(v.events);
      if (v) { view = v; selected = null; }
      return v;
    } catch (e) {
      try { view = await api("GET", `/api/games/${gid}`); } catch (_) { /* keep the old view */ }
      say(`Refused: ${e.message}`);
      return null;
    } finally {
      busy = false;
      if (view) render(view);
    }
  }

  function lock() {
    for (const b of $("rummy-table").querySelectorAll("button")) {
      if (b.id !== "r-summary-continue") b.disabled = true;
    }
  }

  async function pace(events) {
    for (const e of events) {
      $("r-last").textContent = e.text;
      $("r-last").className = e.seat === (view && view.seat) ? "mine" : "";
      if (PACE > 0 && e.seat !== (view && view.seat)) await sleep(PACE);
    }
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

  // ---- drawing the view ---------------------------------------------------------------
  function seatBox(v, s) {
    const seat = v.seats[s];
    const box = el("div", `r-seat-in team${seat.team}${v.to_move === s ? " to-move" : ""}`);
    const who = seat.partner ? `${seat.name} · your partner` : `${seat.name} · opponent`;
    box.append(el("b", "", `player_${s}`), el("span", "", ` ${who}`),
      el("div", "r-count", `${seat.cards} card${seat.cards === 1 ? "" : "s"}`));
    if (seat.known.length) {
      const k = el("div", "r-cards small");
      k.append(el("span", "r-label", "took: "), ...seat.known.map((c) => cardEl(c, "known")));
      box.append(k);
    }
    return box;
  }

  function meldEl(v, m) {
    const d = el("div", "r-meld");
    d.dataset.meld = m.index;
    d.append(el("span", "r-label", `${m.index + 1}`), ...m.cards.map((c, i) => cardEl(c, "in-meld", m.teams[i] === v.seat % 2 ? "mine" : "theirs")));
    if (v.step === "choose" ? v.legal.targets.includes(m.index)
      : selected && (v.legal.lay_off[selected] || []).includes(m.index)) d.classList.add("can-lay");
    d.addEventListener("click", () => clickMeld(m.index));
    return d;
  }

  function render(v) {
    view = v;
    const mine = v.phase === "play" && v.to_move === v.seat;
    const L = v.legal;
    if (selected && !v.hand.includes(selected)) selected = null;
    const my = v.seat % 2, score = (t) => `${v.scores[t]} (on the table now ${v.on_table[t]})`;
    const turn = v.phase === "over" ? `Game over. ${v.winner ? v.winner.text : ""}`
      : v.phase === "round_over" ? "Round over."
      : mine ? { draw: "Your turn: draw from the stock or take from the pile.",
                 meld: "Your turn: meld, lay off, or discard to end it.",
                 building: "Building a meld: add cards (lowest first), then Meld.",
                 choose: "Click the meld to lay your card off on." }[v.step]
      : `player_${v.to_move} (${v.names[v.to_move]}) to move.`;
    $("r-status").textContent = `${turn}  Deal ${v.deal} of ${v.deals} · stock ${v.stock} · ` +
      `you + partner ${score(my)} · opponents ${score(1 - my)}`;
    const at = (k) => (v.seat + k) % 4;
    $("r-seat-left").replaceChildren(seatBox(v, at(1)));
    $("r-seat-top").replaceChildren(seatBox(v, at(2)));
    $("r-seat-right").replaceChildren(seatBox(v, at(3)));
    $("r-you").textContent = `Your hand (player_${v.seat}, team with player_${at(2)})`;
    $("r-stock").textContent = `Stock (${v.stock})`;
    $("r-stock").disabled = !(mine && L.stock);
    $("r-stock").classList.toggle("hinted", hinted === "DRAW_STOCK");
    $("r-meld").classList.toggle("hinted", hinted === "MELD");
    $("r-pass").hidden = !L.pass;
    $("r-pass").disabled = !(mine && L.pass);
    const pile = $("r-pile");
    pile.replaceChildren(...v.pile.map((c) => {
      const b = cardEl(c, "pile");
      if (L.take.includes(c)) b.classList.add("legal");
      if (hinted === `TAKE ${c}`) b.classList.add("hinted");
      b.addEventListener("click", () => clickPile(c));
      return b;
    }));
    $("r-melds-mine").replaceChildren(...v.melds.filter((m) => m.team === my).map((m) => meldEl(v, m)));
    $("r-melds-theirs").replaceChildren(...v.melds.filter((m) => m.team !== my).map((m) => meldEl(v, m)));
    const ob = $("r-obligation");
    ob.hidden = !(v.target || v.pending || v.picked.length);
    ob.textContent = [v.target ? `You must meld ${pretty(v.target)} (taken from the pile) before anything else.` : "",
      v.picked.length ? `Picked: ${v.picked.map(pretty).join(" ")}` : "",
      v.pending ? `Laying off ${pretty(v.pending)}: click the meld.` : ""].filter(Boolean).join("  ");
    $("r-hand").replaceChildren(...v.hand.map((c) => {
      const b = cardEl(c, "hand");
      if (L.pick.includes(c) || L.discard.includes(c) || L.lay_off[c]) b.classList.add("legal");
      if (c === selected) b.classList.add("selected");
      if (hinted && hinted.endsWith(` ${c}`) && !hinted.startsWith("TAKE")) b.classList.add("hinted");
      b.addEventListener("click", () => clickHand(c));
      return b;
    }));
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
  }

  function drawLog(v) {
    const log = $("r-log");
    log.replaceChildren();
    let round = 0, list = null;
    for (const e of v.log) {
      if (e.round !== round) {
        round = e.round;
        log.append(el("h4", "", `Round ${round}`));
        list = el("ol", "r-log-round");
        log.append(list);
      }
      const li = el("li", e.kind, e.kind === "round" ? e.text : `${e.round}.${e.move} ${e.text}`);
      li.value = e.move || 0;
      list.append(li);
    }
    log.scrollTop = log.scrollHeight;
  }

  // ---- clicks -------------------------------------------------------------------------
  function myTurn() {
    if (busy || !view) return false;
    if (view.phase !== "play" || view.to_move !== view.seat) { say("Refused: it is not your turn."); return false; }
    return true;
  }

  function clickPile(c) {
    if (!myTurn()) return;
    if (view.step !== "draw") return say("Refused: you have drawn this turn already.");
    if (!view.legal.take.includes(c)) return say(`Refused: ${pretty(c)} could not be melded at once, so it cannot be taken.`);
    act(`TAKE ${c}`);
  }

  function clickHand(c) {
    if (!myTurn()) return;
    if (view.step === "draw") return say("Draw first: the stock, or a highlighted card of the pile.");
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
    try {
      const h = await api("POST", `/api/games/${gid}/hint`);
      hinted = h.action;  // drawn on the board: the stock, a pile card, a hand card or Meld
      $("r-hint-text").textContent = `${h.agent} would play ${h.action}` +
        (h.turn.length > 1 ? ` (then ${h.turn.slice(1).join(", ")})` : "");
    } catch (e) { say(e.message); } finally { busy = false; render(view); }
  }

  // ---- the round's score sheet -----------------------------------------------------------
  function showSheet(v) {
    const teams = v.sheet.teams;
    const head = (t) => (t.yours ? "You + partner" : "Opponents") + ` (player_${t.seats[0]} + player_${t.seats[1]})`;
    const rows = [["Cards melded", "melded"], ["Four-sets bonus", "four_sets"], ["Going out", "going_out"],
      ["Left in hand", "in_hand"], ["Round total", "total"], ["Game score", "score"]];
    let html = `<tr><th></th>${teams.map((t) => `<th>${head(t)}</th>`).join("")}</tr>`;
    for (const [label, key] of rows) html += `<tr><td>${label}</td>${teams.map((t) => `<td>${t[key]}</td>`).join("")}</tr>`;
    html += `<tr><td>Cards left</td>${teams.map((t) => `<td>${t.left.map(pretty).join(" ") || "-"}</td>`).join("")}</tr>`;
    $("r-summary-table").innerHTML = html;
    const out = v.sheet.went_out;
    $("r-summary-title").textContent = `Round ${v.sheet.round} over` +
      (out === null ? ": four passes with the stock empty" : `: ${out === v.seat ? "you" : `player_${out}`} went out`);
    $("r-winner").textContent = v.phase === "over" && v.winner ? v.winner.text : "";
    $("r-summary-continue").textContent = v.phase === "over" ? "Close" : "Next round";
    if (!$("r-summary").open) $("r-summary").showModal();
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
    $("r-last").textContent = "";
    pace(v.events).then(() => render(v));
    render(v);
  }

  async function start(form) {
    const res = await api("POST", "/api/games", { ...form, game: "persian_rummy" });
    history.replaceState(null, "", `?game=${res.id}${PACE !== 700 ? `&pace=${PACE}` : ""}`);
    open(res.id, res.view);
  }

  return { open, start };
})();
window.Rummy = Rummy;
