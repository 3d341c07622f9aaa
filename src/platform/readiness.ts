// GET /readyz: may a load balancer send this node traffic? It answers within READY_TIMEOUT_MS
// whatever the database does, and says why not when not: shutting down, the database not
// answering a read in time, or (SQLite) the one writer held past the transaction deadline,
// which every write on the node would queue behind. /healthz stays the cheap liveness probe
// (the process answers HTTP); restarting a node for a slow database would not help it.
import type { Database } from '../store/db.ts';

/** The longest /readyz waits for the database before it answers 503. */
export const READY_TIMEOUT_MS = 2000;

export type Readiness =
  | { status: 'ready'; database: string }
  | { status: 'draining' | 'unavailable'; database: string; reason: string };

export async function checkReadiness(database: Database, draining: boolean): Promise<Readiness> {
  const engine = database.engine;
  if (draining) return { status: 'draining', database: engine, reason: 'the node is shutting down; in-flight requests are finishing' };
  const deadline = database.scoping.deadlineMs;
  const held = database.scoping.writerHeldMs();
  if (deadline !== null && held !== null && held > deadline) {
    return { status: 'unavailable', database: engine, reason: `the database writer has been held for ${Math.round(held)} ms, past the ${deadline} ms transaction deadline` };
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), READY_TIMEOUT_MS); });
  const probe = database.db.selectFrom('accounts').select('id').limit(1).execute().then(() => 'ok' as const, (err: Error) => err);
  try {
    const outcome = await Promise.race([probe, timedOut]);
    if (outcome === 'timeout') return { status: 'unavailable', database: engine, reason: `the database did not answer a read within ${READY_TIMEOUT_MS} ms` };
    if (outcome instanceof Error) return { status: 'unavailable', database: engine, reason: `the database refused a read: ${outcome.message}` };
    return { status: 'ready', database: engine };
  } finally {
    clearTimeout(timer);
  }
}
