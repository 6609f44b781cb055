import { readFileSync } from 'node:fs';

/** The CLI ships inside the service's package: its version is the package's. */
export const VERSION = /** @type {{ version: string }} */ (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
).version;

export const USER_AGENT = `posture-cli/${VERSION} node/${process.versions.node}`;
