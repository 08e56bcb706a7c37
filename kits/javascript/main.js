// A Rolling Heights bot in JavaScript (Node.js): plays a random legal action, seeded,
// so the same game gives the same moves. Replace `choose` with your own strategy.
"use strict";

const { run } = require("./protocol");

// mulberry32: a small seeded generator (Math.random cannot be seeded).
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = generator(7);

function choose(legal) {
  return legal[Math.floor(random() * legal.length)];
}

run("starter-js", {
  hello: (hello) => {
    random = generator(7 + hello.seat);
  },
  decide: (decide, legal) => {
    const action = choose(legal);
    return { id: action.id, debug: `random: ${action.text}` };
  },
  end: () => console.error("game over"),
});
