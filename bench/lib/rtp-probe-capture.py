#!/usr/bin/env python3
# bench:streams' wire clock for WS→RTP probes: which moment each probe frame's RTP packet left
# on the loopback interface, by the kernel's own timestamp (not when this process got to run).
# A raw packet socket on `lo` (needs root or CAP_NET_RAW) with a classic BPF filter, so the
# kernel hands over only RTP packets whose payload starts with the probe's magic bytes (over
# IPv4 without options, UDP, a 12-byte RTP header: the payload at byte 54 of the frame), not
# the tens of thousands of others a second. Prints "ready", then one line per packet: the
# probe id (bytes 4-7 of the payload, base-64 digits from 0x10), the kernel time in
# milliseconds since the epoch and the UDP destination port. Each packet is seen leaving and
# arriving (the bench takes the earliest): ours to SIPp, then SIPp's echo of it to us.
import ctypes, socket, struct, sys

MAGIC = 0x5AA53CC3
SO_ATTACH_FILTER = 26
SO_TIMESTAMPNS = 35
ETH_P_ALL = 0x0003

def bpf(code, jt, jf, k):
    return struct.pack('HBBI', code, jt, jf, k)

program = b''.join([
    bpf(0x20, 0, 0, 54),        # ld [54]: the first word of the RTP payload
    bpf(0x15, 0, 1, MAGIC),     # jeq magic
    bpf(0x06, 0, 0, 0xFFFF),    # ret: take it
    bpf(0x06, 0, 0, 0),         # ret: drop
])
filters = ctypes.create_string_buffer(program)
fprog = struct.pack('HL', len(program) // 8, ctypes.addressof(filters))

sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
sock.bind(('lo', 0))
print('ready', flush=True)
while True:
    data, ancillary, _flags, _addr = sock.recvmsg(2048, 64)
    if len(data) < 62:
        continue
    at = None
    for level, kind, value in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            seconds, nanos = struct.unpack('qq', value[:16])
            at = seconds * 1000 + nanos / 1e6
    if at is None:
        continue
    digits = data[58:62]
    probe = 0
    for d in digits:
        probe = probe * 64 + (d - 0x10)
    destination = struct.unpack('!H', data[36:38])[0]
    print(probe, f'{at:.3f}', destination, flush=True)
