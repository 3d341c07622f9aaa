// The live SIP carrier's own table: one row per running media node (migration 0019; 0042).
export interface SipNodeTables {
  sip_nodes: {
    id: string;
    started_at: string;
    heartbeat_at: string;
    /** host:port of its SIP listener (UDP), where other nodes send node-to-node media legs (migration 0042). */
    sip_address: string | null;
  };
}
