// Every migration, in order. Names sort; each module adds its own file and one line here.
import type { Migration } from 'kysely';
import * as platform from './0001_platform.ts';
import * as webhooks from './0002_webhooks.ts';
import * as voice from './0003_voice.ts';
import * as messaging from './0004_messaging.ts';
import * as ai from './0005_ai.ts';
import * as jobIndexes from './0010_job_indexes.ts';
import * as numberCarriers from './0011_number_carriers.ts';
import * as carrierCodes from './0012_carrier_codes.ts';
import * as carrierParts from './0013_carrier_parts.ts';
import * as callFlows from './0014_call_flows.ts';
import * as messageStatusReason from './0015_message_status_reason.ts';
import * as carrierInboundSeen from './0016_carrier_inbound_seen.ts';
import * as numberVoice from './0017_number_voice.ts';
import * as webhookListen from './0018_webhook_listen.ts';
import * as sipNodes from './0019_sip_nodes.ts';
import * as messageCancel from './0020_message_cancel.ts';
import * as callNodes from './0021_call_nodes.ts';
import * as secretKeyCheck from './0022_secret_key_check.ts';
import * as rateLimitBuckets from './0023_rate_limit_buckets.ts';
import * as analyticsIndexes from './0024_analytics_indexes.ts';
import * as callObservability from './0026_call_observability.ts';
import * as consoleTables from './0027_console.ts';
import * as queues from './0029_queues.ts';
import * as conferences from './0028_conferences.ts';
import * as streams from './0030_streams.ts';
import * as workers from './0031_workers.ts';
import * as analyticsColumns from './0033_analytics_columns.ts';
import * as sandboxClockAdvances from './0034_sandbox_clock_advances.ts';
import * as sipRegistrations from './0036_sip_registrations.ts';
import * as monitors from './0037_monitors.ts';
import * as workerStatusHistory from './0038_worker_status_history.ts';
import * as streamNodes from './0040_stream_nodes.ts';
import * as conferenceNodes from './0042_conference_nodes.ts';
import * as jobLanes from './0043_job_lanes.ts';

export const migrations: Record<string, Migration> = {
  '0001_platform': platform,
  '0002_webhooks': webhooks,
  '0003_voice': voice,
  '0004_messaging': messaging,
  '0005_ai': ai,
  '0010_job_indexes': jobIndexes,
  '0011_number_carriers': numberCarriers,
  '0012_carrier_codes': carrierCodes,
  '0013_carrier_parts': carrierParts,
  '0014_call_flows': callFlows,
  '0015_message_status_reason': messageStatusReason,
  '0016_carrier_inbound_seen': carrierInboundSeen,
  '0017_number_voice': numberVoice,
  '0018_webhook_listen': webhookListen,
  '0019_sip_nodes': sipNodes,
  '0020_message_cancel': messageCancel,
  '0021_call_nodes': callNodes,
  '0022_secret_key_check': secretKeyCheck,
  '0023_rate_limit_buckets': rateLimitBuckets,
  '0024_analytics_indexes': analyticsIndexes,
  '0026_call_observability': callObservability,
  '0027_console': consoleTables,
  '0029_queues': queues,
  '0028_conferences': conferences,
  '0030_streams': streams,
  '0031_workers': workers,
  '0033_analytics_columns': analyticsColumns,
  '0034_sandbox_clock_advances': sandboxClockAdvances,
  '0036_sip_registrations': sipRegistrations,
  '0037_monitors': monitors,
  '0038_worker_status_history': workerStatusHistory,
  '0040_stream_nodes': streamNodes,
  '0042_conference_nodes': conferenceNodes,
  '0043_job_lanes': jobLanes,
};
