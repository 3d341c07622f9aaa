// A conference's recording, taken in a media worker: every 20 ms, the sum of the frames of the
// legs the room hears (telephony/conference.ts `hears` with no listener: no coach, nobody
// muted or held), read off the conference's bus like any listener, into a call file (the
// room on channel 0; channel 1 stays silent). The main thread copies it into the recording's
// sink when the conference's recording stops.
import { WavStreamWriter, type WavStreamResult } from '../../media/wav-stream.ts';
import { BusListener, ConferenceBus, FRAME_SAMPLES } from './conference-bus.ts';

const SILENCE = new Int16Array(FRAME_SAMPLES);

export class RoomTap {
  private readonly frame = new Int16Array(FRAME_SAMPLES);

  private constructor(private listener: BusListener, private readonly writer: WavStreamWriter) {}

  static async open(buffer: SharedArrayBuffer, hears: number[], path: string): Promise<RoomTap> {
    return new RoomTap(new BusListener(new ConferenceBus(buffer), hears), await WavStreamWriter.create(path));
  }

  /** The room hears these slots from now (a join, a leave, mute, hold, coach). */
  rehear(hears: number[]): void {
    this.listener = this.listener.rehear(hears);
  }

  tick(): void {
    this.frame.fill(0);
    this.listener.mixInto(this.frame);
    this.writer.write(this.frame, SILENCE);
  }

  close(): Promise<WavStreamResult> {
    return this.writer.close();
  }
}
