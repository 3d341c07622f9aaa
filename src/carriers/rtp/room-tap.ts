// A conference's recording, taken in a media worker: every 20 ms, the sum of the frames of the
// legs the room hears (telephony/conference.ts `hears` with no listener: no coach, nobody
// muted or held), read off the conference's bus like any listener, into a call file (the
// room on channel 0; channel 1 stays silent), with what is played over the room (announcements,
// join and leave beeps) added on top, as the participants hear it. The main thread copies it
// into the recording's sink when the conference's recording stops.
import { WavStreamWriter, type WavStreamResult } from '../../media/wav-stream.ts';
import { BusListener, ConferenceBus, FRAME_SAMPLES } from './conference-bus.ts';

const SILENCE = new Int16Array(FRAME_SAMPLES);

export class RoomTap {
  private readonly frame = new Int16Array(FRAME_SAMPLES);
  /** Audio played over the room, each from where it has got to; overlapping ones add up. */
  private overlays: Array<{ pcm: Int16Array; at: number }> = [];

  private constructor(private listener: BusListener, private readonly writer: WavStreamWriter) {}

  static async open(buffer: SharedArrayBuffer, hears: number[], path: string): Promise<RoomTap> {
    return new RoomTap(new BusListener(new ConferenceBus(buffer), hears), await WavStreamWriter.create(path));
  }

  /** The room hears these slots from now (a join, a leave, mute, hold, coach). */
  rehear(hears: number[]): void {
    this.listener = this.listener.rehear(hears);
  }

  /** `pcm` (line rate) is heard over the room from the next frame. */
  overlay(pcm: Int16Array): void {
    if (pcm.length > 0) this.overlays.push({ pcm, at: 0 });
  }

  tick(): void {
    this.frame.fill(0);
    for (const overlay of this.overlays) {
      const end = Math.min(overlay.at + FRAME_SAMPLES, overlay.pcm.length);
      for (let i = overlay.at; i < end; i++) {
        const s = (this.frame[i - overlay.at] as number) + (overlay.pcm[i] as number);
        this.frame[i - overlay.at] = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
      }
      overlay.at = end;
    }
    this.overlays = this.overlays.filter((overlay) => overlay.at < overlay.pcm.length);
    this.listener.mixInto(this.frame);
    this.writer.write(this.frame, SILENCE);
  }

  close(): Promise<WavStreamResult> {
    return this.writer.close();
  }
}
