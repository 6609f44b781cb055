// Shared by the benches that drive `wrangler dev` with a large generated SBOM: the bundle, an upload
// pass, the CLI run with --json, and waiting for a condition.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { root } from '../scripts/local.mjs';

/** A CycloneDX 1.6 SBOM of `count` npm packages (about 135 bytes each), written as a stream. */
export async function generateSbom(file, count, subject) {
  const out = createWriteStream(file);
  const write = async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,"metadata":{"component":{"type":"application","name":"${subject}"}},"components":[`);
  for (let i = 0; i < count; i++) {
    const name = `package-${i.toString(36)}`;
    const version = `${i % 7}.${i % 13}.${i % 17}`;
    const purl = `pkg:npm/${name}@${version}`;
    await write(`${i ? ',' : ''}{"type":"library","bom-ref":"${purl}","name":"${name}","version":"${version}","purl":"${purl}"}`);
  }
  await write(']}');
  out.end();
  await once(out, 'close');
  return file;
}

export async function createPass(P, session) {
  const res = await fetch(`${P}/credential/spice-pass`, {
    method: 'POST', headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' }, body: '{}',
  });
  if (res.status !== 201) throw new Error(`could not create an upload pass: ${res.status} ${await res.text()}`);
  return (await res.json()).jwt;
}

/** Runs the CLI with --json; answers its exit code, the JSON events it printed, the survey and the bundle's size. */
export function cli(args, pass) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'cli/posture.mjs'), ...args, '--json'], { env: { PATH: process.env.PATH, POSTURE_PASS: pass }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const events = stdout.split('\n').filter(Boolean).map((line) => { try { return JSON.parse(line); } catch { return {}; } });
      const surveyId = events.find((e) => e.surveyId)?.surveyId;
      if (code !== 0 || !surveyId) reject(new Error(`the CLI failed (${code}): ${stderr || stdout}`));
      else resolve({ events, surveyId, bytes: events.find((e) => e.total)?.total ?? 0 });
    });
  });
}

/** Waits until `check()` is truthy (polled every `everyMs`), else throws `failure`. */
export async function until(check, failure, timeoutMs = 60_000, everyMs = 200) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(failure);
}
