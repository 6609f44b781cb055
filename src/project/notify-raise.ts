// Raising a notification event (src/project/notify-store.ts builds and sends it): kept apart so the
// stores that raise events (scoring, re-matching) need nothing else of notifications.
import type { JsonObject } from '../lib/json';
import { nowIso } from '../lib/ids';
import type { EventType } from '../notify/events';
import type { ProjectState } from './state';

/** Whether an enabled rule wants events of this type: only then is one raised. */
export function wanted(state: ProjectState, type: EventType): boolean {
  return state.sql.exec("SELECT 1 FROM notify_rules r, json_each(r.events) e WHERE r.enabled = 1 AND e.value = ? LIMIT 1", type).toArray().length > 0;
}

/**
 * Raises an event: one row, written once per id (a survey finishes once, whatever calls report it),
 * built by the alarm that rings as soon as this call is done.
 */
export function raiseEvent(state: ProjectState, event: { id: string; type: EventType; ref: JsonObject; occurredAt?: string }): boolean {
  if (!wanted(state, event.type)) return false;
  const written = state.sql.exec('INSERT OR IGNORE INTO notify_events (id, type, occurred_at, ref) VALUES (?, ?, ?, ?)',
    event.id, event.type, event.occurredAt ?? nowIso(), JSON.stringify(event.ref)).rowsWritten > 0;
  if (written) state.wakeSoon();
  return written;
}

