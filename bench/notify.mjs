// `npm run bench:notify` (issue 24, "Measurement"): notifications under load, on `wrangler dev` with
// fresh state and three local receivers (two webhooks that verify Standard Webhooks signatures, and one
// standing in for a Slack incoming webhook).
// 1. The extra time a survey takes with rules in place: BENCH_SURVEYS surveys of a BENCH_COMPONENTS-
//    component SBOM without any rule, then as many with a rule sending `survey.completed` to all three
//    destinations; the median survey time (upload complete to survey complete, server timestamps).
//    Target: at most 5% more.
// 2. A burst: BENCH_EVENTS `survey.completed` events raised within a minute (evenly, once a second,
//    through the development route that raises sample events through the rules as real ones are), each
//    going to the three destinations. Measured at the receivers: time from the event to its delivery on
//    the webhooks (p50, p99; target p99 under 10 s), every event delivered once, and deliveries per
//    destination in any one second (never above its limit: webhooks 50, Slack 1).
// Settings: BENCH_PORT (8931), BENCH_EVENTS (1000), BENCH_SURVEYS (5), BENCH_COMPONENTS (2000).
import http from 'node:http';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { readDevVars } from '../scripts/local.mjs';
import { benchService, cli, createPass, generateSbom, projectQuiet, quantile, until } from './harness.mjs';

const PORT = Number(process.env.BENCH_PORT || 8931);
const EVENTS = Number(process.env.BENCH_EVENTS || 1000);
const SURVEYS = Number(process.env.BENCH_SURVEYS || 5);
const COMPONENTS = Number(process.env.BENCH_COMPONENTS || 2000);
const LIMITS = { webhook: 50, slack: 1 };
const TARGETS = { p99Ms: 10_000, surveyGrowth: 0.05 };

/** A receiver: records every request's arrival, and verifies signatures when it has a secret. */
function receiver() {
  const arrivals = [];
  const state = { secret: null, bad: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      if (state.secret) {
        try { new Webhook(state.secret).verify(body, req.headers); } catch { state.bad += 1; }
      }
      arrivals.push({ at, id: req.headers['webhook-id'] ?? null, body });
      res.end('ok');
    });
  });
  return { server, arrivals, state, listen: () => new Promise((r) => server.listen(0, '127.0.0.1', () => r(server.address().port))) };
}

/** The most requests any one-second window held. */
function busiestSecond(times) {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

const svc = await benchService(PORT, 'notify');
const { DEV_SECRET } = readDevVars();
const headers = { authorization: `Bearer ${svc.session}`, 'content-type': 'application/json' };
const N = `${svc.P}/v1/notification`;
const post = async (url, body) => {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
};
const receivers = { a: receiver(), b: receiver(), slack: receiver() };
let missed = 0;
const verdict = (ok) => (ok ? 'met' : 'MISSED');
try {
  const ports = Object.fromEntries(await Promise.all(Object.entries(receivers).map(async ([k, r]) => [k, await r.listen()])));
  const pass = await createPass(svc.P, svc.session);
  const file = await generateSbom(join(svc.work, 'notify.cdx.json'), COMPONENTS, 'notify-app');
  const quiet = () => projectQuiet(svc, DEV_SECRET);

  /** One survey, timed from its upload's completion to its own (server timestamps), once its work is done. */
  async function surveyMs(target) {
    await until(quiet, 'the previous survey\'s work did not finish in 5 minutes', 300_000, 250);
    const { surveyId } = await cli(['upload', file, '--api', svc.base, '--project', svc.projectId, '--target', target, '--wait', '--timeout', '600'], pass);
    const job = await (await fetch(`${svc.P}/v1/job/${surveyId}`, { headers })).json();
    const upload = job.steps.find((s) => s.step_type === 'UPLOAD');
    return Date.parse(job.finished_at) - Date.parse(upload.finished_at);
  }

  const destinations = [];
  for (const [key, kind] of [['a', 'webhook'], ['b', 'webhook'], ['slack', 'slack']]) {
    const created = await post(`${N}/destination`, { kind, name: `bench ${key}`, url: `http://127.0.0.1:${ports[key]}/hook` });
    receivers[key].state.secret = created.secret;
    destinations.push(created.destination.id);
  }
  const ruleBody = { name: 'Every survey', events: ['survey.completed'], destination_ids: destinations };
  const rule = await post(`${N}/rule`, { ...ruleBody, enabled: false });
  const enable = async (enabled) => {
    const res = await fetch(`${N}/rule/${rule.id}`, { method: 'PUT', headers, body: JSON.stringify({ ...ruleBody, enabled }) });
    if (!res.ok) throw new Error(`rule: ${res.status} ${await res.text()}`);
  };
  // Surveys without and with the rule in turn (a warm service for both); each of a new subject (target),
  // so none reuses an earlier one's analysis.
  const without = [];
  const withRules = [];
  for (let i = 0; i < SURVEYS; i++) {
    await enable(false);
    without.push(await surveyMs(`without-${i}`));
    await enable(true);
    withRules.push(await surveyMs(`with-${i}`));
  }
  await until(() => receivers.a.arrivals.length >= SURVEYS && receivers.b.arrivals.length >= SURVEYS, 'the surveys\' events did not arrive in a minute', 60_000);
  const surveyEvents = { a: receivers.a.arrivals.length, b: receivers.b.arrivals.length, slack: receivers.slack.arrivals.length };
  for (const r of Object.values(receivers)) r.arrivals.length = 0;

  // The burst: EVENTS events within a minute, a batch each second.
  const raised = [];
  const perSecond = Math.ceil(EVENTS / 60);
  const started = Date.now();
  for (let sent = 0, second = 0; sent < EVENTS; second++) {
    const count = Math.min(perSecond, EVENTS - sent);
    const wait = started + second * 1000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const res = await fetch(`${svc.base}/api/v1/dev/notify-burst?projectId=${svc.projectId}&count=${count}`, { method: 'POST', headers: { 'x-dev-secret': DEV_SECRET } });
    if (!res.ok) throw new Error(`notify-burst: ${res.status} ${await res.text()}`);
    raised.push(...(await res.json()).events);
    sent += count;
  }
  const raisedIn = Date.now() - started;
  const ids = new Set(raised.map((e) => e.id));
  await until(() => ['a', 'b'].every((k) => new Set(receivers[k].arrivals.map((m) => JSON.parse(m.body).id)).size >= ids.size), 'the burst was not delivered within 5 minutes', 300_000, 500);
  // Slack gets digests: wait until its last one has come (nothing new for 3 s).
  await until(() => receivers.slack.arrivals.length && Date.now() - receivers.slack.arrivals.at(-1).at > 3_000, 'Slack\'s digests did not stop', 300_000, 500);
  const occurredAt = new Map(raised.map((e) => [e.id, Date.parse(e.occurred_at)]));

  console.log(`\nbench:notify on ${new Date().toISOString()}`);
  const medianWithout = quantile(without, 0.5);
  const medianWith = quantile(withRules, 0.5);
  const growth = medianWith / medianWithout - 1;
  console.log(`\n1. Survey time with rules (${SURVEYS} surveys each, ${COMPONENTS.toLocaleString('en')} components, upload complete to survey complete)`);
  console.log(`- without rules: ${without.join(', ')} ms (median ${medianWithout})`);
  console.log(`- with a rule to three destinations: ${withRules.join(', ')} ms (median ${medianWith})`);
  console.log(`- growth ${(100 * growth).toFixed(1)}% (target at most ${100 * TARGETS.surveyGrowth}%): ${verdict(growth <= TARGETS.surveyGrowth)}`);
  console.log(`- their events arrived: webhook A ${surveyEvents.a}, webhook B ${surveyEvents.b}, Slack ${surveyEvents.slack} messages`);
  if (growth > TARGETS.surveyGrowth) missed++;

  console.log(`\n2. A burst of ${EVENTS.toLocaleString('en')} events in ${(raisedIn / 1000).toFixed(1)} s, each to three destinations`);
  for (const key of ['a', 'b']) {
    const r = receivers[key];
    const latencies = r.arrivals.map((m) => m.at - occurredAt.get(JSON.parse(m.body).id));
    const distinct = new Set(r.arrivals.map((m) => m.id)).size;
    const p99 = quantile(latencies, 0.99);
    const busiest = busiestSecond(r.arrivals.map((m) => m.at));
    console.log(`- webhook ${key.toUpperCase()}: ${r.arrivals.length} requests, ${distinct} distinct webhook-ids, ${r.state.bad} bad signatures; event to delivery p50 ${quantile(latencies, 0.5)} ms, p99 ${p99} ms (target under ${TARGETS.p99Ms}): ${verdict(p99 < TARGETS.p99Ms)}; busiest second ${busiest} (limit ${LIMITS.webhook}): ${verdict(busiest <= LIMITS.webhook)}`);
    if (p99 >= TARGETS.p99Ms) missed++;
    if (busiest > LIMITS.webhook || r.state.bad || distinct < ids.size) missed++;
  }
  const slack = receivers.slack.arrivals;
  const busiestSlack = busiestSecond(slack.map((m) => m.at));
  const last = Math.max(...raised.map((e) => Date.parse(e.occurred_at)));
  const covered = slack.reduce((n, m) => n + Number(/^(\d+) alerts from /.exec(JSON.parse(m.body).text)?.[1] ?? 1), 0);
  if (covered !== EVENTS) missed++;
  console.log(`- Slack: ${slack.length} messages carrying ${covered} of ${EVENTS} events (${verdict(covered === EVENTS)}); busiest second ${busiestSlack} (limit ${LIMITS.slack}): ${verdict(busiestSlack <= LIMITS.slack)}; last digest ${slack.at(-1).at - last} ms after the last event`);
  if (busiestSlack > LIMITS.slack) missed++;
  console.log(`\n${missed ? `${missed} target(s) MISSED` : 'all targets met'}`);
} finally {
  for (const r of Object.values(receivers)) r.server.close();
  await svc.stop();
}
process.exitCode = missed ? 1 : 0;
