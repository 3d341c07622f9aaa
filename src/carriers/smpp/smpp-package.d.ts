// The parts of the `smpp` npm package (node-smpp, CommonJS, untyped) that Switchboard uses.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer } from 'node:net';

  export interface Pdu {
    command: string;
    command_status: number;
    sequence_number: number;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): Pdu;
    [field: string]: any;
  }
  export class PDU implements Pdu {
    constructor(command: string, options?: Record<string, unknown>);
    command: string;
    command_status: number;
    sequence_number: number;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): Pdu;
    [field: string]: any;
  }
  export interface Session extends EventEmitter {
    socket: import('node:net').Socket;
    send(pdu: Pdu, onResponse?: (pdu: Pdu) => void, onSent?: (pdu: Pdu) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    pause(): void;
    resume(): void;
    [command: string]: any;
  }
  export interface Server extends NetServer {
    sessions: Session[];
  }
  export function connect(options: Record<string, unknown>, listener?: () => void): Session;
  export function createServer(options: Record<string, unknown>, listener?: (session: Session) => void): Server;
  export function createServer(listener?: (session: Session) => void): Server;
  export const errors: Record<string, number>;
  const smpp: {
    connect: typeof connect;
    createServer: typeof createServer;
    PDU: typeof PDU;
    errors: Record<string, number>;
    filters: { message: { decode: (this: unknown, value: unknown, skipUdh?: boolean) => unknown } };
  };
  export default smpp;
}
