// The browser table of evolve.serve: plain JS over the JSON API (no build step).
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const PLACES = ["You", "Left", "Partner", "Right"];
let listing = null;            // GET /api/agents
let table = null;              // {id, token, seat, game}
let busy = false;
const SAVED = "trick-evolve-table";   // localStorage: the last table started here, to resume it

// the seat's token travels in a header (never in a URL, so no history or log holds it)
async function api(method, path, body, token) {
  const opts = { method, headers: {} };
  if (token) opts.headers["X-Seat-Token"] = token;
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
  return data;
}

function cardHtml(name, extra) {
  const suit = name.slice(-1);
  const red = suit === "D" || suit === "H";
  return `<span class="card${red ? " red" : ""}${extra ? " " + extra : ""}">${name.slice(0, -1)}${SUITS[suit]}</span>`;
}

function shortName(seat) {
  // champion:NAME@X reads "champion NAME@X"
  const m = /^champion:([^@]+)(@.*)?$/.exec(seat);
  return m ? `champion ${m[1]}${m[2] || ""}` : seat;
}

function seatLabel(s) {
  const who = table.seats ? shortName(table.seats[s]) : "";
  return s === table.seat ? "You (seat 0)" : `${PLACES[s]}: ${who}`;
}

// ------------------------------------------------------------------ setup

function fillAgents() {
  const game = $("game").value;
  const dl = $("agent-list");
  dl.innerHTML = "";
  for (const a of listing.agents) {
    if (!a.games.includes(game)) continue;
    dl.insertAdjacentHTML("beforeend", `<option value="${a.name}:bidder=simple">`);
    dl.insertAdjacentHTML("beforeend", `<option value="${a.name}">`);
  }
  for (const c of listing.champions) {
    if (c.game === game) dl.insertAdjacentHTML("beforeend", `<option value="${c.seat}">${c.name} (${c.kind})</option>`);
  }
  const opts = $("options");
  opts.innerHTML = "";
  for (const [k, o] of Object.entries(listing.games[game].options)) {
    let input;
    if (o.choices) {
      input = `<select data-option="${k}">${o.choices.map((c) => `<option${c === o.default ? " selected" : ""}>${c}</option>`).join("")}</select>`;
    } else if (typeof o.default === "boolean") {
      input = `<input type="checkbox" data-option="${k}"${o.default ? " checked" : ""}>`;
    } else {
      input = `<input type="number" data-option="${k}" value="${o.default}" style="width:5em">`;
    }
    opts.insertAdjacentHTML("beforeend", `<label title="${o.help.replace(/"/g, "&quot;")}">${k} ${input}</label>`);
  }
}

async function start() {
  $("setup-error").textContent = "";
  const options = {};
  for (const el of document.querySelectorAll("[data-option]")) {
    options[el.dataset.option] = el.type === "checkbox" ? el.checked : el.tagName === "SELECT" ? el.value : Number(el.value);
  }
  const seats = ["human", $("seat1").value.trim(), $("seat2").value.trim(), $("seat3").value.trim()];
  const body = { game: $("game").value, seats, seed: Number($("seed").value), deals: Number($("deals").value),
                 dealer: Number($("first-dealer").value), options };
  try {
    busy = true;
    $("start").disabled = true;
    $("status").textContent = "dealing (the first use of an agent compiles it, up to a minute)...";
    const r = await api("POST", "/api/tables", body);
    table = { id: r.id, token: r.tokens["0"], seat: 0, game: body.game, seats };
    // the server keeps the table across restarts; this browser keeps its seat, to come back to it
    localStorage.setItem(SAVED, JSON.stringify(table));
    $("setup").hidden = true;
    $("play").hidden = false;
    $("log-link").href = `/api/tables/${r.id}/log`;
    render(r.view);
    if (r.error) $("error").textContent = r.error;
  } catch (e) {
    $("setup-error").textContent = e.message;
  } finally {
    busy = false;
    $("start").disabled = false;
  }
}

// ------------------------------------------------------------------ the table

function render(v) {
  table.view = v;
  const g = listing.games[v.game];
  const mode = v.trump >= 0 ? g.modes[v.trump] : "not chosen";
  const over = v.decision === "over";
  const me = v.to_act === table.seat && !over;
  $("status").dataset.decision = v.decision;
  $("status").textContent = over ? "The table is over." :
    me ? `Your turn: ${v.decision === "card" ? "play a card" : v.decision}` : `Waiting for seat ${v.to_act}`;
  $("trump").textContent = mode;
  $("upcard").innerHTML = v.upcard >= 0 ? `(${v.game === "euchre" ? "turned" : "shown"} ${cardHtml(g.cards[v.upcard])})` : "";
  $("dealer").textContent = seatLabel(v.dealer);
  $("maker").textContent = v.maker >= 0 ? seatLabel(v.maker) : "-";
  const sides = v.score.length === 2 ? ["us (0+2)", "them (1+3)"] : [0, 1, 2, 3].map((s) => PLACES[s]);
  // while a deal is played, the view counts tricks (Spades, Euchre) or card points
  // (Sueca, Jass); the deal's score is in the "Final." line and in the game score
  $("deal-label").textContent = ["jass", "sueca"].includes(v.game) ? "Card points this deal" : "Tricks this deal";
  $("deal-score").textContent = v.score.map((x, i) => `${sides[i]} ${x}`).join(", ");
  const last = v.results.length ? v.results[0] : null;
  const gs = over && last ? last.game_score : v.game_score;
  $("game-score").textContent = gs.map((x, i) => `${sides[i]} ${x}`).join(", ") +
    (v.table.target ? ` (to ${v.table.target})` : "");

  // the trick in progress, or the last finished trick (faded) when a new one starts
  let trick = v.trick, lastTrick = false;
  if (!trick.length && v.tricks.length) { trick = v.tricks[v.tricks.length - 1]; lastTrick = true; }
  if (!trick.length && !v.tricks.length && last && last.tricks_per_trick.length && v.phase === "bid") {
    const t = last.tricks_per_trick[last.tricks_per_trick.length - 1];
    // seats in play order, skipping the partner of a lone Euchre hand (session.trick_pairs)
    const out = last.alone ? (last.maker + 2) % 4 : -1;
    trick = []; let s = t.leader;
    for (const c of t.cards) { trick.push([s, c]); s = (s + 1) % 4; if (s === out) s = (s + 1) % 4; }
    lastTrick = true;
  }
  for (let s = 0; s < 4; s++) {
    const spot = $(`spot${s}`);
    const who = spot.querySelector(".who");
    who.textContent = seatLabel(s) + (s === v.out_seat ? " (sits out)" : "");
    who.classList.toggle("to-act", s === v.to_act && !over);
    const p = trick.find((x) => x[0] === s);
    spot.querySelector(".played").innerHTML = p ? cardHtml(g.cards[p[1]], lastTrick ? "last" : "") : "";
    spot.querySelector(".played").dataset.card = p ? p[1] : "";
  }
  $("trick-label").textContent = lastTrick ? "last trick" : (v.phase === "play" ? `trick ${v.tricks.length + 1}` : "");

  $("calls").textContent = v.calls.length ? "Calls: " + v.calls.map(([s, a]) => `${seatLabel(s)}: ${callName(v, a)}`).join(" \u00b7 ") : "";

  // bids / calls
  const bids = $("bids");
  bids.innerHTML = "";
  if (me && v.decision !== "card" && v.decision !== "discard") {
    bids.insertAdjacentHTML("beforeend", `<span>${v.decision}: </span>`);
    for (const l of v.legal) bids.insertAdjacentHTML("beforeend", `<button data-action="${l.action}">${l.name}</button>`);
  }
  // the hand: legal cards (and the Euchre discard) are clickable
  const legalCards = new Set(me && (v.decision === "card" || v.decision === "discard") ? v.legal.map((l) => l.action) : []);
  const hand = $("hand");
  hand.innerHTML = v.decision === "discard" && me ? "<span>Discard one card: </span>" : "";
  v.hand.forEach((c, i) => {
    const name = v.hand_names[i];
    const ok = legalCards.has(c);
    const suit = name.slice(-1);
    hand.insertAdjacentHTML("beforeend",
      `<button class="card${suit === "D" || suit === "H" ? " red" : ""}${ok ? " legal" : ""}" data-card="${c}"${ok ? "" : " disabled"}>${name.slice(0, -1)}${SUITS[suit]}</button>`);
  });

  // the last finished deal
  let res = "";
  if (last) {
    const t = last.trump >= 0 ? g.modes[last.trump] : "passed out";
    res = `Deal ${last.deal + 1} (${t}): score ${last.score.map((x, i) => `${sides[i]} ${x}`).join(", ")}; ` +
          `game ${last.game_score.map((x, i) => `${sides[i]} ${x}`).join(", ")}`;
    if (last.game_winner >= 0) res += ` \u2014 game won by ${sides[last.game_winner]}`;
  }
  if (over) res = "Final. " + res;
  $("result").textContent = res;
  $("result").dataset.score = last ? JSON.stringify(last.score) : "";
  $("result").dataset.gameScore = last ? JSON.stringify(last.game_score) : "";
  $("result").dataset.over = over ? "1" : "0";
  $("hint").disabled = !me;
  $("hint-text").textContent = "";
  $("error").textContent = v.table.error || "";
}

function callName(v, a) {
  const g = listing.games[v.game];
  if (v.game === "spades") return a === 0 && v.options.bidding === "standard" ? "nil" : String(a);
  if (v.game === "jass") return a === 6 ? "push" : g.modes[a];
  return { 4: "pass", 5: "order up", 6: "alone", 7: "with partner" }[a] || g.modes[a];
}

async function act(action) {
  if (busy) return;
  busy = true;
  $("error").textContent = "";
  try {
    // n_actions: the table takes this action only where this view was, so a retry never acts twice
    const body = { seat: table.seat, action, n_actions: table.view.table.n_actions };
    const v = await api("POST", `/api/tables/${table.id}/action`, body, table.token);
    render(v);
  } catch (e) {
    $("error").textContent = e.message;
    refresh();
  } finally {
    busy = false;
  }
}

async function refresh() {
  try {
    render(await api("GET", `/api/tables/${table.id}?seat=${table.seat}`, undefined, table.token));
  } catch (e) {
    $("error").textContent = e.message;
  }
}

async function hint() {
  $("hint-text").textContent = "thinking...";
  try {
    const agent = encodeURIComponent($("hint-agent").value.trim());
    const h = await api("GET", `/api/tables/${table.id}/hint?seat=${table.seat}&agent=${agent}`, undefined, table.token);
    $("hint-text").textContent = `${h.agent} would ${table.view.decision === "card" ? "play" : "choose"} ${h.name}`;
    for (const el of document.querySelectorAll(".hinted")) el.classList.remove("hinted");
    const el = document.querySelector(`#hand [data-card="${h.action}"], #bids [data-action="${h.action}"]`);
    if (el && (table.view.decision === "card" || table.view.decision === "discard" || el.dataset.action !== undefined)) el.classList.add("hinted");
  } catch (e) {
    $("hint-text").textContent = e.message;
  }
}

// a table started in this browser that is not over yet: offer to go back to it
async function offerResume() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(SAVED) || "null"); } catch (e) { saved = null; }
  if (!saved || !saved.id || !saved.token) return;
  try {
    const v = await api("GET", `/api/tables/${saved.id}?seat=${saved.seat}`, undefined, saved.token);
    if (v.decision === "over") return;
    $("resume").textContent = `Resume your ${v.game} table (deal ${v.table.deal + 1})`;
    $("resume").hidden = false;
    $("resume").onclick = () => {
      table = saved;
      $("setup").hidden = true;
      $("play").hidden = false;
      $("log-link").href = `/api/tables/${saved.id}/log`;
      render(v);
    };
  } catch (e) {
    localStorage.removeItem(SAVED);     // expired or from another server
  }
}

document.addEventListener("click", (ev) => {
  const t = ev.target.closest("button");
  if (!t || t.disabled) return;
  if (t.id === "start") start();
  else if (t.id === "hint") hint();
  else if (t.id === "new") { $("play").hidden = true; $("setup").hidden = false; }
  else if (t.dataset.card !== undefined && t.closest("#hand")) act(Number(t.dataset.card));
  else if (t.dataset.action !== undefined) act(Number(t.dataset.action));
});

(async () => {
  listing = await api("GET", "/api/agents");
  const sel = $("game");
  for (const name of Object.keys(listing.games)) sel.insertAdjacentHTML("beforeend", `<option>${name}</option>`);
  const q = new URLSearchParams(location.search);
  if (q.get("game")) sel.value = q.get("game");
  sel.addEventListener("change", fillAgents);
  fillAgents();
  await offerResume();
  document.body.dataset.ready = "1";
})();
