// Recording audio lives in files under <data dir>/recordings/<account>/<recording>.wav, so
// it survives restarts with either database engine. Writes go to a temporary file and are
// renamed into place, so a reader never sees half a file and a redaction, once written,
// fully replaces the original (nothing unredacted is kept). Several PostgreSQL nodes must
// share this directory (NFS, a mounted volume) to serve each other's recordings.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export class MediaStore {
  constructor(private readonly root: string) {}

  pathFor(accountId: string, recordingId: string): string {
    return join('recordings', accountId, `${recordingId}.wav`);
  }

  async write(relative: string, data: Buffer): Promise<void> {
    const target = join(this.root, relative);
    await mkdir(dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temporary, data, { flush: true });
    await rename(temporary, target);
  }

  read(relative: string): Promise<Buffer> {
    return readFile(join(this.root, relative));
  }
}
