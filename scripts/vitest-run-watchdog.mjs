// A Vitest reporter that ends a run whose every test file has reported but which never ends.
//
// Vitest ends a run when each file's worker says it has finished, and a worker says so only once every
// call it made to the Vitest process has been answered (vitest's `rpcDone()`, with no time limit). In
// workerd the Worker's own background work (the real queues' consumers, alarms) makes such calls
// (module imports, console output) from its own request contexts; now and then one is never answered
// and the run waited for ever with every test passed (docs/decisions.md, "The test suite's start-up").
// Once every file has reported, this waits `graceSeconds` more for the run to end, then prints what
// it knows and exits: 1 when a test or file failed or an unhandled error was reported, 0 when
// everything passed (every result is in; only the pool's goodbye is missing).

// A run ends within a few seconds of its last file reporting (its hooks ran before it reported); a hung one waits this long.
const DEFAULT_GRACE_SECONDS = 30;

export default class RunWatchdog {
  /** @param {{ graceSeconds?: number }} [options] */
  constructor(options = {}) {
    this.graceMs = (Number(process.env.VITEST_WATCHDOG_SECONDS) || options.graceSeconds || DEFAULT_GRACE_SECONDS) * 1000;
    this.expected = 0;
    /** @type {Set<string>} */
    this.ended = new Set();
    /** @type {NodeJS.Timeout | undefined} */
    this.timer = undefined;
  }

  onInit(vitest) {
    this.vitest = vitest;
  }

  onTestRunStart(specifications) {
    this.expected = new Set(specifications.map((s) => s.moduleId)).size;
    this.ended.clear();
    clearTimeout(this.timer);
  }

  onTestModuleEnd(testModule) {
    this.ended.add(testModule.moduleId);
    if (this.expected && this.ended.size >= this.expected && !this.timer) {
      this.timer = setTimeout(() => this.endStuckRun(), this.graceMs);
    }
  }

  onTestRunEnd() {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  endStuckRun() {
    const modules = this.vitest.state.getTestModules();
    const failedFiles = modules.filter((m) => m.state() === 'failed').map((m) => m.relativeModuleId);
    const failedTests = this.vitest.state.getCountOfFailedTests();
    const errors = this.vitest.state.getUnhandledErrors();
    const failed = failedFiles.length > 0 || failedTests > 0 || errors.length > 0;
    console.error([
      '',
      `vitest-run-watchdog: all ${this.expected} test files reported, but the run had not ended ${this.graceMs / 1000} s later:`,
      'a worker never said it finished (a call it made to the Vitest process was never answered). Ending the run.',
      `  files failed: ${failedFiles.length ? failedFiles.join(', ') : 'none'}; failed tests and suites: ${failedTests}; unhandled errors: ${errors.length}`,
      ...errors.map((e) => `  unhandled: ${e.name ?? 'Error'}: ${e.message}`),
      `  exit code ${failed ? 1 : 0}`,
      '',
    ].join('\n'));
    process.exit(failed ? 1 : 0);
  }
}
