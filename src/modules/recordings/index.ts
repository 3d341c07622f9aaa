// Recordings: capture of calls (on answer with `record: true`, or by the API), processing
// into WAV files with timed transcripts, and PII redaction. Registered after calls: it
// follows their transitions and uses their carrier.
import type { SwitchboardModule } from '../module.ts';
import { RecordingSchema } from './schema.ts';
import { RecordingService } from './service.ts';
import { recordingRoutes } from './routes.ts';

export const recordingsModule: SwitchboardModule = {
  name: 'recordings',
  register(app, { platform, events, services }) {
    const recordings = new RecordingService(platform, events, services.calls, services.voiceCarriers);
    services.recordings = recordings;
    // A flow's record verb makes a recording through this service.
    services.flowInterpreter.connectRecordings({
      start: (trx, call, clock) => recordings.startForFlow(trx, call, clock),
      stop: (trx, call, id, clock) => recordings.stopForFlow(trx, call, id, clock),
    });
    for (const carrier of services.voiceCarriers.all()) carrier.media.connectSinks(recordings.sinks);
    app.addSchema(RecordingSchema);
    recordingRoutes(app, recordings);
  },
};
