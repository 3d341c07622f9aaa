// Table types for Kysely. Each module owns its tables (in its own `tables.ts`); this file
// joins them into the one database type. Conventions on both engines: timestamps are
// RFC 3339 UTC text, booleans are 0/1 integers, JSON documents are text.
import type { PlatformTables } from './platform-tables.ts';
import type { WebhookTables } from '../modules/webhooks/tables.ts';
import type { CallTables } from '../modules/calls/tables.ts';
import type { RecordingTables } from '../modules/recordings/tables.ts';
import type { NumbersTables } from '../modules/numbers/tables.ts';
import type { PortsTables } from '../modules/ports/tables.ts';
import type { MessagesTables } from '../modules/messages/tables.ts';
import type { AiTables } from '../modules/ai/tables.ts';
import type { CarrierTables } from '../carriers/live-messaging/tables.ts';
import type { SipNodeTables } from '../carriers/sip/tables.ts';
import type { ConsoleTables } from '../modules/console/tables.ts';
import type { QueueTables } from '../modules/queues/tables.ts';
import type { SimulatorTables } from '../carriers/simulator/tables.ts';
import type { ConferenceTables } from '../modules/conferences/tables.ts';
import type { StreamTables } from '../modules/streams/tables.ts';
import type { WorkerTables } from '../modules/workers/tables.ts';
import type { MonitorTables } from '../modules/monitors/tables.ts';

export interface Tables extends PlatformTables, WebhookTables, CallTables, RecordingTables,
  NumbersTables, PortsTables, MessagesTables, AiTables, CarrierTables, SipNodeTables, ConsoleTables, QueueTables,
  SimulatorTables, ConferenceTables, StreamTables, WorkerTables, MonitorTables {}
