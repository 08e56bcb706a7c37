// The bot protocol's plumbing for Node.js bots: JSON lines on stdin/stdout
// (docs/bot-protocol.md). Node's own modules only.
"use strict";

const readline = require("readline");

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

// Calls handlers.hello(message), handlers.decide(message) -> {id, debug} and
// handlers.end(message) as the runner's messages arrive; answers hello with ready.
function run(name, handlers) {
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  lines.on("line", (line) => {
    const message = JSON.parse(line);
    if (message.type === "hello") {
      if (handlers.hello) handlers.hello(message);
      send({ type: "ready", name });
    } else if (message.type === "decide") {
      const { id, debug } = handlers.decide(message, message.observation.legal);
      send(debug ? { type: "action", id, debug } : { type: "action", id });
    } else if (message.type === "end") {
      if (handlers.end) handlers.end(message);
      process.exit(0);
    }
  });
}

module.exports = { run, send };
