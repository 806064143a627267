#!/usr/bin/env node
// A small mahjong-ssh bot speaking the bot protocol (docs/bot-protocol.md) on stdin/stdout.
//
// It plays sensibly but simply: it wins whenever it may (胡, 塘子烂糊), declines to buy
// (Yichun 买) and lets every other claim go; in its turn it discards its most isolated tile
// (never the wild 宝 while it has another choice), declaring 报听 when the discard allows it.
// It keeps no state: every request carries the whole state of the seat.
//
//   mahjong-ssh arena --rules gejiu --seat "node examples/simple-bot.js" --deals 5 --duplicate
//   ssh -p 2222 HOST bot join t1   with this program (node examples/simple-bot.js --start
//                                  --one-game)
//                                  on the other end of the channel: docs/bot-protocol.md
"use strict";

const readline = require("readline");

const START = process.argv.includes("--start"); // bot join: start the table's game if it waits
const ONE_GAME = process.argv.includes("--one-game"); // bot join: leave after one game

const SUITS = "mps"; // 万 筒 条

function parse(tile) {
  // "5m" -> {suit: "m", n: 5}; "E" -> {suit: "z", n: 0, name: "E"}
  if (tile.length === 2 && SUITS.includes(tile[1])) return { suit: tile[1], n: Number(tile[0]) };
  return { suit: "z", n: 0, name: tile };
}

// How much a tile belongs with the others: copies of it count most, then neighbours.
function keepScore(tile, tiles, wild) {
  if (tile === wild) return 100;
  const t = parse(tile);
  let score = 0;
  for (const other of tiles) {
    if (other === tile) score += 4;
    const o = parse(other);
    if (t.suit !== "z" && o.suit === t.suit && o.n !== t.n) {
      const gap = Math.abs(o.n - t.n);
      if (gap === 1) score += 2;
      else if (gap === 2) score += 1;
    }
  }
  score -= 4; // the tile itself was counted once
  if (t.suit === "z") score -= 1; // a lone honour goes first
  else if (t.n === 1 || t.n === 9) score -= 0.5; // then a lone terminal
  return score;
}

function choose(req) {
  const legal = req.legal;
  const find = (pred) => legal.find((x) => pred(x.action));
  const win = find((a) => a.a === "win" || a.a === "pond_win");
  if (win) return win.id;
  if (req.phase === "buy") {
    const no = find((a) => a.a === "no_buy" && !a.lighter) || legal[0];
    return no.id;
  }
  const discards = legal.filter((x) => x.action.a === "discard");
  if (discards.length === 0) {
    const pass = find((a) => a.a === "pass");
    return (pass || legal[0]).id;
  }
  const st = req.state;
  const tiles = st.hand.concat(st.drawn ? [st.drawn] : []);
  let best = null;
  let bestScore = Infinity;
  for (const d of discards) {
    let s = keepScore(d.action.tile, tiles, st.wild);
    if (d.action.ting) s -= 0.25; // 报听 with the same discard when it is offered
    if (s < bestScore) {
      best = d;
      bestScore = s;
    }
  }
  return best.id;
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    process.stderr.write(`simple-bot: not JSON: ${line.slice(0, 80)}\n`);
    return;
  }
  if (msg.type === "hello" && START && msg.state === "waiting") {
    // bot join on a table nobody has started: start it (computer players in the empty seats)
    process.stdout.write(JSON.stringify({ command: "start" }) + "\n");
  } else if (msg.type === "request") {
    process.stdout.write(JSON.stringify({ request: msg.request, choice: choose(msg) }) + "\n");
  } else if (msg.type === "game_end" && ONE_GAME) {
    process.exit(0); // one game, then the session ends
  } else if (msg.type === "error") {
    process.stderr.write(`simple-bot: the table refused an answer: ${msg.message}\n`);
  }
});
rl.on("close", () => process.exit(0));
