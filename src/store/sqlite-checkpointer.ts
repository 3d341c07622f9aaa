// SQLite in WAL mode copies the log back into the database ("checkpoint") from inside
// whichever commit pushes the log past 1,000 pages, and that copy ends in an fsync: a
// commit, and the whole event loop with it, stalls for as long as the disk takes. The
// server turns that off on its own connection and checkpoints from a worker thread with a
// connection of its own instead. PASSIVE checkpoints never block readers or writers.
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const checkpoint = (mode) => {
  try { db.pragma('wal_checkpoint(' + mode + ')'); } catch (err) { parentPort.postMessage(String(err)); }
};
const timer = setInterval(() => checkpoint('PASSIVE'), workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint('PASSIVE');
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(file: string, onError: (message: string) => void, intervalMs = 1000): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, intervalMs } });
  worker.on('message', (message: string) => onError(message));
  worker.on('error', (err) => onError(String(err)));
  return {
    stop: () => new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.postMessage('stop');
    }),
  };
}
