// Recordings: capture of calls (on answer with `record: true`, or by the API), processing
// into WAV files with timed transcripts, and PII redaction. Registered after calls: it
// follows their transitions and uses their carrier.
import type { SwitchboardModule } from '../module.ts';
import { RecordingSchema } from './schema.ts';
import { RecordingService } from './service.ts';
import { recordingRoutes } from './routes.ts';

export const recordingsModule: SwitchboardModule = {
  name: 'recordings',
  register(app, { platform, events, services, wiring }) {
    const recordings = new RecordingService(platform, events, services.calls, services.voiceCarriers);
    services.recordings = recordings;
    // A flow's record verb makes a recording through this service.
    wiring.flow.recordings.fill({
      start: (trx, call, clock) => recordings.startForFlow(trx, call, clock),
      stop: (trx, call, id, clock) => recordings.stopForFlow(trx, call, id, clock),
    });
    // Every carrier's captured audio goes into this service's recordings.
    wiring.recordingSinks.fill(recordings.sinks);
    app.addSchema(RecordingSchema);
    recordingRoutes(app, recordings);
  },
};
