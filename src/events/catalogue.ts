// The event catalogue: every state change of every resource has one event type,
// `<resource>.<change>`. The five names of the service interface are exact:
// call.completed, call.recording.ready, message.delivered, ai.conversation.scored,
// number.ported. The OpenAPI document's `webhooks` section is generated from this list.
export const EVENT_TYPES = {
  // Calls: one per transition of the call state machine.
  'call.queued': 'A call was created and is waiting for the carrier.',
  'call.ringing': 'The called party is ringing.',
  'call.answered': 'The called party answered; the call is in progress.',
  'call.completed': 'A call has completed. Fires once for every call that ends, whatever the outcome (after call.busy, call.no_answer, call.failed or call.canceled when it did not complete); status, hangup_cause and failure say how.',
  'call.busy': 'The called party was busy.',
  'call.no_answer': 'The called party did not answer before the ring timeout.',
  'call.failed': 'The carrier could not place the call.',
  'call.canceled': 'The call was hung up before it was answered.',
  'call.transfer_started': 'A blind transfer of a call in progress started: the target is ringing (the transfer is pending in transfers[]); call.transferred or call.transfer_failed follows, or call.completed when the call ends first (the transfer then shows canceled).',
  'call.transferred': 'A call in progress was transferred to another number.',
  'call.transfer_failed': 'A transfer failed (the target was busy or did not answer); the call stays up.',

  // Call flows (docs/voice-flows.md): what a flow verb collected or met, on the call's own sequence.
  'call.inbound': 'A caller reached a number of the account whose calls a flow answers (voice_url, voice_flow, or none configured); call.ringing follows.',
  'call.gather.completed': 'A flow\'s gather ended: the digits pressed or the words said, and why it ended (a key, the digit count, a timeout, an utterance).',
  'call.dial.completed': 'A flow\'s dial ended: the dialled number\'s outcome (completed after talking, busy, no_answer, failed) and the talk time; the call goes on with the flow.',
  'call.queue.joined': 'A flow\'s enqueue put the call in a queue: its position and priority; it hears the wait flow until it is bridged or leaves.',
  'call.queue.left': 'A call left its queue: `result` says why (bridged by a dequeue, timeout, hangup, leave) and `wait_seconds` how long it waited.',
  'call.dtmf.sent': 'Keypresses were sent to the other party of a call in progress (POST /v1/calls/{id}/dtmf).',
  'call.stream.started': 'A media stream connected: the WebSocket handshake succeeded and the server got the connected and start frames (docs/media-streams.md).',
  'call.stream.stopped': 'A media stream ended: reason completed (the app sent stop), remote_closed (the server closed the socket), call_ended, stopped (POST /v1/calls/{id}/streams/{stream_id}/stop) or node_lost (the Switchboard process holding its socket crashed, restarted or was stopped while the call went on), with the frames dropped because the server read too slowly.',
  'call.stream.failed': 'A media stream could not connect: refused, a TLS error, a handshake answered with another HTTP status, a timeout, or a URL the policy forbids; the call goes on.',
  'call.flow.failed': 'A flow webhook failed (timeout, non-2xx, not JSON, an invalid or empty flow with the JSON path of its first error, a redirect loop): the fallback URL is asked next, else the caller hears an apology and the call hangs up.',

  // Recordings
  'call.recording.started': 'A recording of a call started.',
  'call.recording.paused': 'A recording was paused.',
  'call.recording.resumed': 'A recording was resumed.',
  'call.recording.stopped': 'A recording was stopped; processing follows.',
  'call.recording.processing': 'A stopped recording is being processed (its file finished, its transcript made); call.recording.ready or call.recording.failed follows.',
  'call.recording.ready': 'A recording of a call is available.',
  'call.recording.failed': 'A recording could not be processed.',
  'call.recording.redacted': 'PII was redacted from a recording.',
  'call.recording.deleted': 'A recording was deleted: its audio file and transcript are gone for good; the recording shows status deleted.',

  // Conferences (docs/contact-center.md): one per transition, and one per participant's change.
  'conference.started': 'A conference started: a start_on_enter participant joined, and its participants hear each other.',
  'conference.ended': 'A conference ended (its last participant left, an end_on_exit one left, or POST /v1/conferences/{id}/end); every participant still in it went on with its flow.',
  'conference.participant.joined': 'A call joined a conference (the conference verb, or POST /v1/conferences/{id}/participants once answered).',
  'conference.participant.left': 'A call left a conference: removed, the conference ended, a new flow, or a hang-up (left_reason says which).',
  'conference.participant.updated': 'A participant was muted or unmuted, held or resumed, or made a coach (PATCH /v1/conferences/{id}/participants/{call_id}).',

  // Supervisors' monitors (docs/contact-center.md, "Supervisors"): on the monitored call.
  'call.monitor.started': 'A supervisor answered and is seated beside the call\'s conversation (POST /v1/calls/{id}/monitor, or a monitor verb): it hears both parties; `mode` says who hears it.',
  'call.monitor.updated': 'A monitor\'s mode changed (listen, whisper, barge) with PATCH /v1/calls/{id}/monitors/{monitor_id}.',
  'call.monitor.ended': 'A monitor ended: DELETE, the supervisor hung up or never answered, or the conversation ended (`end_reason`); the conversation goes on as it was.',

  // Workers (docs/contact-center.md): human agents.
  'worker.status_changed': 'A worker\'s status changed (available, busy, wrap_up, offline): by PATCH /v1/workers/{id}, or by Switchboard around a routed call.',
  'worker.offered': 'A queue\'s waiting caller was offered to the worker: its phone is ringing (offer.call_id), the caller keeps hearing the wait audio.',
  'worker.connected': 'The worker answered an offer and is connected to the caller; it is busy until the call ends, then in wrap_up.',
  'worker.missed': 'The worker did not answer an offer (no answer within ring_timeout_seconds, busy, or failed): the caller waits on for the next worker; the worker stays available, behind the other idle workers, or goes offline (the queue\'s routing.on_missed).',

  // Messages: one per status change.
  'message.queued': 'A message was accepted and queued.',
  'message.sending': 'A message is being handed to the carrier.',
  'message.sent': 'The carrier accepted a message.',
  'message.delivered': 'A message has been delivered.',
  'message.undelivered': 'The carrier could not deliver a message.',
  'message.failed': 'A message could not be sent.',
  'message.read': 'A WhatsApp message was read by the recipient.',
  'message.received': 'An inbound message was received by a number of the account.',
  'message.canceled': 'A queued message was canceled (POST /v1/messages/{id}/cancel) before its carrier took it; it will not be sent.',

  // Numbers and ports
  'number.provisioned': 'A phone number was provisioned.',
  'number.updated': 'A phone number was updated.',
  'number.released': 'A phone number was released.',
  'number.port.submitted': 'A port-in order was submitted (or resubmitted after an exception).',
  'number.port.foc_scheduled': 'The losing carrier confirmed a firm order commitment (FOC) date.',
  'number.port.exception': 'A port-in order needs attention (e.g. wrong PIN or account number).',
  'number.port.rejected': 'The losing carrier rejected a port-in order.',
  'number.port.canceled': 'A port-in order was canceled.',
  'number.port.completed': 'A port-in order has finished.',
  'number.ported': 'A number port has finished.',

  // AI receptionist
  'ai.agent.created': 'An AI agent was created.',
  'ai.agent.updated': 'An AI agent was updated.',
  'ai.agent.deleted': 'An AI agent was deleted.',
  'ai.knowledge.ready': 'A knowledge document was ingested and indexed.',
  'ai.knowledge.failed': 'A knowledge document could not be ingested.',
  'ai.conversation.started': 'An AI conversation started.',
  'ai.conversation.completed': 'An AI conversation completed.',
  'ai.conversation.scored': 'An AI conversation has been scored.',

  // Webhooks
  'webhook.test': 'A test event sent by POST /v1/webhooks/{id}/test.',
} as const;

export type EventType = keyof typeof EVENT_TYPES;
