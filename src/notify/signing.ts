// Standard Webhooks (https://www.standardwebhooks.com): every webhook carries `webhook-id` (stable
// across retries, so receivers deduplicate), `webhook-timestamp` (seconds) and `webhook-signature`:
// `v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` under the secret's bytes. During a
// rotation the message is signed with both secrets, space-separated, so either verifies.

const SECRET_PREFIX = 'whsec_';
/** 32 random bytes: the specification asks for 24 to 64. */
const SECRET_BYTES = 32;

const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string): Uint8Array => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** A new signing secret, `whsec_` and base64: shown once when a destination is created or rotated. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

async function signOne(secret: string, content: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey('raw', fromBase64(secret.slice(SECRET_PREFIX.length)), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return `v1,${toBase64(new Uint8Array(await crypto.subtle.sign('HMAC', key, content)))}`;
}

/** The three Standard Webhooks headers for one message, signed with every secret given (the current one first). */
export async function webhookHeaders(input: { id: string; timestampSeconds: number; body: string; secrets: string[] }): Promise<Record<string, string>> {
  const content = new TextEncoder().encode(`${input.id}.${input.timestampSeconds}.${input.body}`);
  const signatures = await Promise.all(input.secrets.map((secret) => signOne(secret, content)));
  return { 'webhook-id': input.id, 'webhook-timestamp': String(input.timestampSeconds), 'webhook-signature': signatures.join(' ') };
}
