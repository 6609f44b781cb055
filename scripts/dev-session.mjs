// `npm run dev:session [-- --email X]`: prints, on one line, a dashboard session token of the local
// instance for the seeded admin (or for X, signing X up when unknown).
import { parseArgs } from 'node:util';
import { devCall, localBase } from './local.mjs';

const { values } = parseArgs({ options: { email: { type: 'string' }, port: { type: 'string' } } });
try {
  const answer = await devCall(localBase(values.port), '/api/v1/dev/session', values.email ? { email: values.email } : {});
  process.stdout.write(`${answer.jwt}\n`);
} catch (error) {
  const reason = error.cause?.code === 'ECONNREFUSED' ? 'the local service is not running: start it with `npm run dev`' : error.message;
  console.error(`dev:session: ${reason}`);
  process.exit(1);
}
