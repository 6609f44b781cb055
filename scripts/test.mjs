#!/usr/bin/env node
// `npm test`: the three parts of the suite, the workerd files beside the Node files then the browser suite.
//
// The workerd files (`vitest run`) take most of the time; the Node files (the CLI, end-to-end runs
// against `wrangler dev`) and the browser suite (the dashboard in Chromium) run meanwhile, one after the
// other, so at most two parts share the cores and the workerd run's start and tail (one worker left on
// its last long file) are filled (docs/decisions.md, "The test suite's start-up"). The workerd output
// streams as it comes; each of the other parts prints whole when it ends, so the log stays readable.
// Every part runs to its end; the exit code is 1 when any failed. TEST_PARTS=sequential runs them one
// after the other.
import { spawn } from 'node:child_process';

const PARTS = {
  workerd: ['npx', ['vitest', 'run']],
  node: ['npx', ['vitest', 'run', '-c', 'vitest.node.config.mts']],
  browser: ['node', ['scripts/test-browser.mjs']],
};

const started = Date.now();
const seconds = (from) => `${Math.round((Date.now() - from) / 1000)} s`;

/** Runs one part; answers its name, exit code and time. `live`: its output goes straight through. */
function run(name, live) {
  const [command, args] = PARTS[name];
  const from = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    if (!live) {
      child.stdout.on('data', (d) => chunks.push(d));
      child.stderr.on('data', (d) => chunks.push(d));
    }
    child.on('close', (code, signal) => {
      const result = { name, code: code ?? 1, time: seconds(from), signal };
      if (!live) {
        process.stdout.write(`\n──── npm test: ${name} (${result.time}, exit ${signal ?? result.code}) ────\n`);
        process.stdout.write(Buffer.concat(chunks));
        process.stdout.write(`──── end of ${name} ────\n\n`);
      }
      resolve(result);
    });
  });
}

async function inTurn(names, live) {
  const results = [];
  for (const name of names) results.push(await run(name, live));
  return results;
}

const sequential = process.env.TEST_PARTS === 'sequential';
const results = sequential
  ? await inTurn(['workerd', 'node', 'browser'], true)
  : (await Promise.all([inTurn(['workerd'], true), inTurn(['node', 'browser'], false)])).flat();

for (const r of results) console.log(`npm test: ${r.name} ${r.code === 0 ? 'passed' : `FAILED (exit ${r.signal ?? r.code})`} in ${r.time}`);
console.log(`npm test: ${seconds(started)} in all`);
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
