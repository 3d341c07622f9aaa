// The live SIP carrier's own table: one row per running media node (migration 0019).
export interface SipNodeTables {
  sip_nodes: {
    id: string;
    started_at: string;
    heartbeat_at: string;
  };
}
