// The SIP and media machinery of one node: the transport (UDP, TCP, TLS listeners), the user
// agent on it and the RTP engine's workers. The carrier makes them when it starts; every one
// of its jobs talks to the network through them.
import type { MediaEngine } from '../rtp/engine.ts';
import type { SipTransport } from './transport.ts';
import type { UserAgent } from './user-agent.ts';

export class SipStack {
  transport!: SipTransport;
  ua!: UserAgent;
  engine!: MediaEngine;
}
