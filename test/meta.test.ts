import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

const call = (path: string, init?: RequestInit) => exports.default.fetch(new Request(`http://localhost${path}`, init));

describe('errors and routing (spec part 7)', () => {
  it('answers an unknown path with 404 not_found in the error shape', async () => {
    const res = await call('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: expect.any(String), status: 404, code: 'not_found' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers a known path with a wrong method with 405 and an Allow header', async () => {
    const res = await call('/api/v1/health', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(await res.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('serves the health answer and the OpenAPI 3.1 document', async () => {
    expect(await (await call('/api/v1/health')).json()).toEqual({ status: 'ok' });
    const doc = (await (await call('/api/v1/openapi.json')).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/api/v1/health']).toBeDefined();
  });
});
