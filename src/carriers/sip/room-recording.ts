// A live conference's recording, once its room tap (rtp/room-tap.ts) has stopped: the room
// (channel 0 of the tap's call file) copied into the recording's sink a second at a time, so
// memory stays bounded whatever the length; then the tap's file is removed.
import { open, rm } from 'node:fs/promises';
import type { RecordingSink } from '../media-port.ts';
import type { RecordingFormat } from '../../telephony/media-ops.ts';
import { LINE_RATE, readCallChannel } from '../../media/call-file.ts';

export async function copyRoom(path: string, frames: number, sink: RecordingSink, format: RecordingFormat): Promise<void> {
  try {
    const file = await open(path, 'r');
    try {
      for (let at = 0; at < frames; at += LINE_RATE) {
        const room = await readCallChannel(file, at, Math.min(LINE_RATE, frames - at), 0);
        if (room.length === 0) break;
        await sink.write(format.channels === 2 ? [room, room] : [room]);
      }
    } finally {
      await file.close();
    }
    await sink.close();
  } catch (err) {
    await sink.abort(`copying the conference's audio failed: ${(err as Error).message}`);
    throw err;
  } finally {
    await rm(path, { force: true });
  }
}
