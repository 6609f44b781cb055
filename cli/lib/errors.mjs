// The kinds of failure the CLI reports, each with its exit code: a usage error (2) is the caller's
// to fix before anything is sent; a CliError is a service or network failure (1) or, after a
// COMPLETED survey, a release gate that did not pass (3, 4: lib/figures.mjs).

export class CliError extends Error {
  /**
   * @param {string} message the whole line after `posture: `
   * @param {{ code?: string | number, exitCode?: number, jsonEvent?: boolean }} [options] `jsonEvent:
   *   false` keeps the error out of --json's stdout (the `done` line already says it)
   */
  constructor(message, options = {}) {
    super(message);
    this.name = 'CliError';
    /** @type {string | number | undefined} */
    this.code = options.code;
    this.exitCode = options.exitCode ?? 1;
    this.jsonEvent = options.jsonEvent ?? true;
  }
}

export class UsageError extends CliError {
  /** @param {string} message */
  constructor(message) {
    super(message, { code: 'usage', exitCode: 2 });
    this.name = 'UsageError';
  }
}
