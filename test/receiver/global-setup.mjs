// A webhook receiver for the notification tests (test/notifications): a real HTTP server on 127.0.0.1
// that the Worker's deliveries reach from workerd. Each endpoint `/hook/{name}` behaves as configured
// (`POST /_config/{name}`): answer 200, fail with 500, answer too late, or redirect; with a secret it
// verifies the Standard Webhooks signature with the `standardwebhooks` library (answering 401 when it
// does not verify). `GET /_log/{name}` lists what it received. The port reaches the tests via `inject`.
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

export default async function setup({ provide }) {
  /** @type {Map<string, { mode: string, secret?: string, delayMs?: number }>} */
  const configs = new Map();
  /** @type {Map<string, object[]>} */
  const logs = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const [, kind, name] = (req.url ?? '').split('/');
      if (kind === '_config' && req.method === 'POST') {
        configs.set(name, JSON.parse(body));
        logs.set(name, logs.get(name) ?? []);
        res.end('{}');
        return;
      }
      if (kind === '_log') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(logs.get(name) ?? []));
        return;
      }
      if (kind !== 'hook') { res.statusCode = 404; res.end(); return; }
      const config = configs.get(name) ?? { mode: 'ok' };
      let verified = null;
      if (config.secret) {
        try {
          // Verifies webhook-id, webhook-timestamp (within 5 minutes) and any of the signatures.
          new Webhook(config.secret).verify(body, req.headers);
          verified = true;
        } catch {
          verified = false;
        }
      }
      const list = logs.get(name) ?? [];
      list.push({ at: Date.now(), headers: req.headers, body, verified, mode: config.mode });
      logs.set(name, list);
      const answer = () => {
        if (config.mode === 'redirect') { res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data' }); res.end(); return; }
        if (config.mode === 'fail') { res.statusCode = 500; res.end('receiver down'); return; }
        if (verified === false) { res.statusCode = 401; res.end('bad signature'); return; }
        res.end('ok ' + 'x'.repeat(config.answerBytes ?? 0));
      };
      if (config.mode === 'slow') setTimeout(answer, config.delayMs ?? 5_000);
      else answer();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  provide('receiverPort', /** @type {import('node:net').AddressInfo} */ (server.address()).port);
  return () => new Promise((resolve) => server.close(() => resolve(undefined)));
}
