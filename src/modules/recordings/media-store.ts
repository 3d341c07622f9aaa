// Recording audio lives in files under <data dir>/recordings/<account>/<recording>.wav, so
// it survives restarts with either database engine. Files are written in chunks to a
// partial file and renamed into place (sinks.ts), so a reader never sees half a file;
// redaction zeroes ranges in place, keeping no unredacted copy. Several PostgreSQL nodes must
// share this directory (NFS, a mounted volume) to serve each other's recordings.
import { rm, stat } from 'node:fs/promises';
import { createReadStream, type ReadStream } from 'node:fs';
import { join } from 'node:path';

export class MediaStore {
  constructor(private readonly root: string) {}

  pathFor(accountId: string, recordingId: string): string {
    return join('recordings', accountId, `${recordingId}.wav`);
  }

  absolute(relative: string): string {
    return join(this.root, relative);
  }

  /** Removes a recording's file and any partial file left beside it; absent files are fine (a repeat). */
  async remove(relative: string): Promise<void> {
    const path = join(this.root, relative);
    await rm(path, { force: true });
    await rm(`${path}.partial`, { force: true });
  }

  /** The file as a stream (downloads never load a recording into memory), with its size. */
  async stream(relative: string): Promise<{ stream: ReadStream; size: number }> {
    const path = join(this.root, relative);
    const { size } = await stat(path);
    return { stream: createReadStream(path), size };
  }
}
