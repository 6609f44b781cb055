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
