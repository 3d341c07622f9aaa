// SMPP 3.4 command_status values (section 5.1.3) as names and readable text, for error
// messages and for deciding what to retry. Only the codes an SMSC plausibly answers to
// bind and submit_sm are described; any other is shown as its hex value.
export const SMPP_STATUS: Record<number, [name: string, text: string]> = {
  0x00: ['ESME_ROK', 'no error'],
  0x01: ['ESME_RINVMSGLEN', 'message length is invalid'],
  0x02: ['ESME_RINVCMDLEN', 'command length is invalid'],
  0x03: ['ESME_RINVCMDID', 'invalid command id'],
  0x04: ['ESME_RINVBNDSTS', 'incorrect bind status for this command'],
  0x05: ['ESME_RALYBND', 'already bound'],
  0x08: ['ESME_RSYSERR', 'system error at the SMSC'],
  0x0a: ['ESME_RINVSRCADR', 'invalid source address'],
  0x0b: ['ESME_RINVDSTADR', 'invalid destination address'],
  0x0c: ['ESME_RINVMSGID', 'message id is invalid'],
  0x0d: ['ESME_RBINDFAIL', 'bind failed'],
  0x0e: ['ESME_RINVPASWD', 'invalid password'],
  0x0f: ['ESME_RINVSYSID', 'invalid system_id'],
  0x14: ['ESME_RMSGQFUL', 'message queue full'],
  0x15: ['ESME_RINVSERTYP', 'invalid service type'],
  0x43: ['ESME_RINVESMCLASS', 'invalid esm_class'],
  0x45: ['ESME_RSUBMITFAIL', 'submit_sm failed'],
  0x48: ['ESME_RINVSRCTON', 'invalid source address TON'],
  0x49: ['ESME_RINVSRCNPI', 'invalid source address NPI'],
  0x50: ['ESME_RINVDSTTON', 'invalid destination address TON'],
  0x51: ['ESME_RINVDSTNPI', 'invalid destination address NPI'],
  0x53: ['ESME_RINVSYSTYP', 'invalid system_type'],
  0x58: ['ESME_RTHROTTLED', 'throttling error: the ESME exceeded its allowed message rate'],
  0x61: ['ESME_RINVSCHED', 'invalid scheduled delivery time'],
  0x62: ['ESME_RINVEXPIRY', 'invalid validity period'],
  0x64: ['ESME_RX_T_APPN', 'temporary application error at the SMSC'],
  0x65: ['ESME_RX_P_APPN', 'permanent application error at the SMSC'],
  0x66: ['ESME_RX_R_APPN', 'the SMSC rejected the message'],
  0xc0: ['ESME_RINVTLVSTREAM', 'error in the optional part of the PDU'],
  0xc1: ['ESME_RTLVNOTALLWD', 'an optional parameter is not allowed'],
  0xc4: ['ESME_RINVTLVVAL', 'an optional parameter has an invalid value'],
  0xfe: ['ESME_RDELIVERYFAILURE', 'delivery failure'],
  0xff: ['ESME_RUNKNOWNERR', 'unknown error'],
  0x104: ['ESME_RINVDCS', 'invalid data_coding'],
};

/** Statuses that mean "slow down and try again", not "this message is bad". */
export const RETRYABLE_STATUSES = new Set([0x14, 0x58, 0x08, 0x64]);

export function statusName(status: number): string {
  return SMPP_STATUS[status]?.[0] ?? `0x${status.toString(16).padStart(8, '0')}`;
}

/** `ESME_RINVPASWD (0x0000000e): invalid password`. */
export function describeStatus(status: number): string {
  const known = SMPP_STATUS[status];
  const hex = `0x${status.toString(16).padStart(8, '0')}`;
  return known ? `${known[0]} (${hex}): ${known[1]}` : `command_status ${hex}`;
}
