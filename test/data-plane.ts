// Helpers for data-plane tests: a project whose storage is set up, and its upload pass.
import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { projectStub } from '../src/project/client';
import { newTenant } from './helpers';
import { uploadPass } from './people';

/** Sets the project's storage up now (the INSTANCE_STARTUP job's alarm, run at once). */
export async function provisioned(projectId: string): Promise<void> {
  const stub = projectStub(env, projectId);
  await stub.provision(projectId);
  await runDurableObjectAlarm(stub);
}

/** A fresh tenant whose project is set up, with an upload pass for it. */
export async function dataTenant(label = 'data') {
  const tenant = await newTenant(label);
  await provisioned(tenant.projectId);
  return { ...tenant, pass: await uploadPass(tenant) };
}

/** Reads server-sent events until `done` says stop (or the time runs out). */
export async function readEvents(res: Response, done: (events: { comments: string[]; updates: any[] }) => boolean, timeoutMs = 5000) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events = { comments: [] as string[], updates: [] as any[] };
  let buffer = '';
  const deadline = Date.now() + timeoutMs;
  while (!done(events) && Date.now() < deadline) {
    const next = await Promise.race([reader.read(), new Promise<{ done: true; value: undefined }>((r) => setTimeout(() => r({ done: true, value: undefined }), deadline - Date.now()))]);
    if (next.done) break;
    buffer += decoder.decode(next.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.startsWith(':')) events.comments.push(block.slice(1).trim());
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (block.includes('event: job-update') && data) events.updates.push(JSON.parse(data.slice(6)));
    }
  }
  await reader.cancel().catch(() => undefined);
  return events;
}
