// Destination URLs and signing secrets are kept sealed (AES-256-GCM) in the project object's storage,
// under a key derived from NOTIFY_KEY (set by `npm run setup:cloudflare`; `.dev.vars` locally). A
// sealed value is `v1.{iv}.{ciphertext}` in base64url; the version names the derivation, so a later
// key can be introduced beside this one.
import { base64url as jose64 } from 'jose';
import { base64url } from '../lib/ids';
import { ApiError } from '../lib/errors';

const INFO = new TextEncoder().encode('posture notify v1');
const keys = new Map<string, Promise<CryptoKey>>();

/** The sealing key of NOTIFY_KEY (derived once per isolate); 503 when the deployment has none. */
function sealingKey(notifyKey: string | undefined): Promise<CryptoKey> {
  if (!notifyKey || notifyKey.length < 32) {
    throw new ApiError('unavailable', 'Notifications are not set up on this deployment: NOTIFY_KEY (at least 32 characters) is missing; `npm run setup:cloudflare` sets it.');
  }
  let key = keys.get(notifyKey);
  if (!key) {
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(notifyKey), 'HKDF', false, ['deriveKey'])
      .then((base) => crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: INFO }, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']));
    keys.set(notifyKey, key);
  }
  return key;
}

export async function seal(notifyKey: string | undefined, plain: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const cipher = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await sealingKey(notifyKey), new TextEncoder().encode(plain));
  return `v1.${base64url(iv)}.${base64url(new Uint8Array(cipher))}`;
}

export async function unseal(notifyKey: string | undefined, sealed: string): Promise<string> {
  const [version, iv, cipher] = sealed.split('.');
  if (version !== 'v1' || !iv || !cipher) throw new Error('A sealed notification value has an unknown format.');
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: jose64.decode(iv) }, await sealingKey(notifyKey), jose64.decode(cipher));
  return new TextDecoder().decode(plain);
}
