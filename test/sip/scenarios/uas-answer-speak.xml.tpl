<?xml version="1.0" encoding="ISO-8859-1" ?>
<!-- SIPp as a trunk that answers, then streams a capture the test wrote (the placeholder is replaced
     by its path: speech-calls.test.ts), and waits for our BYE. -->
<scenario name="uas answers and speaks a capture">
  <recv request="INVITE"/>
  <send>
    <![CDATA[
SIP/2.0 180 Ringing
[last_Via:]
[last_From:]
[last_To:];tag=[pid]SIPpTag01[call_number]
[last_Call-ID:]
[last_CSeq:]
Content-Length: 0

    ]]>
  </send>
  <send retrans="500">
    <![CDATA[
SIP/2.0 200 OK
[last_Via:]
[last_From:]
[last_To:];tag=[pid]SIPpTag01[call_number]
[last_Call-ID:]
[last_CSeq:]
Contact: <sip:sipp@[local_ip]:[local_port];transport=[transport]>
Content-Type: application/sdp
Content-Length: [len]

v=0
o=sipp 1 1 IN IP[local_ip_type] [local_ip]
s=-
c=IN IP[media_ip_type] [media_ip]
t=0 0
m=audio [media_port] RTP/AVP 0 101
a=rtpmap:0 PCMU/8000
a=rtpmap:101 telephone-event/8000

    ]]>
  </send>
  <recv request="ACK"/>
  <pause milliseconds="600"/>
  <nop>
    <action>
      <exec play_pcap_audio="PCAP_PATH"/>
    </action>
  </nop>
  <recv request="BYE"/>
  <send>
    <![CDATA[
SIP/2.0 200 OK
[last_Via:]
[last_From:]
[last_To:]
[last_Call-ID:]
[last_CSeq:]
Content-Length: 0

    ]]>
  </send>
</scenario>
