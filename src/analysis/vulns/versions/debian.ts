// Debian and Ubuntu package versions: [epoch:]upstream[-revision], as `dpkg --compare-versions` orders
// them (dpkg's lib/dpkg/version.c). No maintained JavaScript library does this; the algorithm is small.
import { compareDigits } from './digits';

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** dpkg's order(): `~` before everything (even the end), then the end and digits, then letters, then other characters. */
function order(c: string | undefined): number {
  if (c === undefined || isDigit(c)) return 0;
  if (c === '~') return -1;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

/** dpkg's verrevcmp: alternating non-digit runs (compared by order()) and digit runs (compared by value). */
function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isDigit(a[i])) || (j < b.length && !isDigit(b[j]))) {
      const d = order(a[i]) - order(b[j]);
      if (d !== 0) return Math.sign(d);
      i++;
      j++;
    }
    const da = /^[0-9]*/.exec(a.slice(i))![0];
    const db = /^[0-9]*/.exec(b.slice(j))![0];
    i += da.length;
    j += db.length;
    const d = compareDigits(da || '0', db || '0');
    if (d !== 0) return d;
  }
  return 0;
}

/** Epoch (digits before the first `:`, 0 when absent), upstream version, revision (after the last `-`). */
function split(v: string): [string, string, string] {
  const colon = v.indexOf(':');
  // dpkg refuses an epoch that is not a number; such text stays in the version, where it still orders.
  const hasEpoch = colon > 0 && /^[0-9]+$/.test(v.slice(0, colon));
  const rest = hasEpoch ? v.slice(colon + 1) : v;
  const dash = rest.lastIndexOf('-');
  const epoch = hasEpoch ? v.slice(0, colon) : '0';
  return dash > 0 ? [epoch, rest.slice(0, dash), rest.slice(dash + 1)] : [epoch, rest, ''];
}

/** Debian (and Ubuntu) version ordering, as `dpkg --compare-versions`. */
export function compareDebian(a: string, b: string): number {
  const [ea, ua, ra] = split(a.trim());
  const [eb, ub, rb] = split(b.trim());
  return compareDigits(ea, eb) || verrevcmp(ua, ub) || verrevcmp(ra, rb);
}
