// What the agent does when it transfers a caller, shared by the sandbox runner (runner.ts)
// and the live one (live-runner.ts), which otherwise do not know each other.
import { MESSAGE_PROMPT } from '../engine/index.ts';

/** Seconds the agent lets the transfer target ring before offering to take a message. */
export const TRANSFER_RING_TIMEOUT = 20;
export const TRANSFER_FAILED_TEXT = `I'm sorry, nobody is available to take your call right now. I can take a message for the team. So, ${MESSAGE_PROMPT}`;
