// The two kinds of failure the CLI reports, each with its exit code: a usage error (2) is the
// caller's to fix before anything is sent; a CliError (1) is a service or network failure.

export class CliError extends Error {
  /**
   * @param {string} message the whole line after `posture: `
   * @param {{ code?: string | number, exitCode?: number }} [options]
   */
  constructor(message, options = {}) {
    super(message);
    this.name = 'CliError';
    /** @type {string | number | undefined} */
    this.code = options.code;
    this.exitCode = options.exitCode ?? 1;
  }
}

export class UsageError extends CliError {
  /** @param {string} message */
  constructor(message) {
    super(message, { code: 'usage', exitCode: 2 });
    this.name = 'UsageError';
  }
}
