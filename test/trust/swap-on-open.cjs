// Makes a file change between any two reads, as deterministically as a race can be made: each time the
// file is opened, the next of its contents is renamed over it first (a real file replaced, as a
// `git checkout` or an attacker's loop would). Used in-process (`install`) and, preloaded with
// `node --require` and GANTRY_TEST_SWAP_ON_OPEN='{"file":…,"contents":[…]}', by a CLI run.
const fs = require("node:fs");
const path = require("node:path");

/** Wraps fs.openSync so every open of `file` reads the next of `contents` in turn; returns the undo. */
function install(file, contents) {
  const target = path.resolve(file);
  const original = fs.openSync;
  let next = 0;
  let swapping = false;
  fs.openSync = function openSync(opened, ...rest) {
    if (!swapping && typeof opened === "string" && path.resolve(opened) === target) {
      swapping = true;
      try {
        const staged = `${target}.swap-${process.pid}`;
        fs.writeFileSync(staged, contents[next++ % contents.length]);
        fs.renameSync(staged, target);
      } finally {
        swapping = false;
      }
    }
    return original.call(this, opened, ...rest);
  };
  // ES module imports of node:fs see the wrapper too
  require("node:module").syncBuiltinESMExports();
  return () => {
    fs.openSync = original;
    require("node:module").syncBuiltinESMExports();
  };
}

module.exports = { install };

const fromEnv = process.env.GANTRY_TEST_SWAP_ON_OPEN;
if (fromEnv) {
  const { file, contents } = JSON.parse(fromEnv);
  install(file, contents);
}
