<?xml version="1.0" encoding="ISO-8859-1" ?>
<!-- SIPp as a carrier delivering a call to one of our numbers ([service], -s) whose caller
     speaks a capture the test wrote (the placeholder below is replaced by its path: ai-receptionist.test.ts),
     then takes our blind transfer: accepts the REFER to the agent's transfer number (202), reports Trying then 200 OK in
     sipfrag NOTIFYs, and expects our BYE (RFC 5589). -->
<scenario name="uac inbound call, transferred by REFER">
  <send retrans="500">
    <![CDATA[
INVITE sip:[service]@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
From: "SIPp" <sip:+15557770000@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To: <sip:[service]@[remote_ip]:[remote_port]>
Call-ID: [call_id]
CSeq: 1 INVITE
Contact: <sip:sipp@[local_ip]:[local_port];transport=[transport]>
Max-Forwards: 70
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
  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="200" rtd="true" rrs="true"/>
  <send>
    <![CDATA[
ACK [next_url] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
From: "SIPp" <sip:+15557770000@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
[last_To:]
Call-ID: [call_id]
CSeq: 1 ACK
Max-Forwards: 70
Content-Length: 0

    ]]>
  </send>
  <nop>
    <action>
      <exec play_pcap_audio="PCAP_PATH"/>
    </action>
  </nop>
  <recv request="REFER" rrs="true">
    <action>
      <ereg regexp=".*" search_in="hdr" header="From:" check_it="true" assign_to="us"/>
      <ereg regexp="sip:TARGET@" search_in="hdr" header="Refer-To:" check_it="true" assign_to="target"/>
    </action>
  </recv>
  <send>
    <![CDATA[
SIP/2.0 202 Accepted
Subject: transfer to [$target]
[last_Via:]
[last_From:]
[last_To:]
[last_Call-ID:]
[last_CSeq:]
Content-Length: 0

    ]]>
  </send>
  <send retrans="500">
    <![CDATA[
NOTIFY [next_url] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
From: "SIPp" <sip:+15557770000@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To:[$us]
Call-ID: [call_id]
CSeq: 2 NOTIFY
Contact: <sip:sipp@[local_ip]:[local_port];transport=[transport]>
Max-Forwards: 70
Event: refer
Subscription-State: active;expires=60
Content-Type: message/sipfrag;version=2.0
Content-Length: [len]

SIP/2.0 100 Trying
    ]]>
  </send>
  <recv response="200"/>
  <send retrans="500">
    <![CDATA[
NOTIFY [next_url] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
From: "SIPp" <sip:+15557770000@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To:[$us]
Call-ID: [call_id]
CSeq: 3 NOTIFY
Contact: <sip:sipp@[local_ip]:[local_port];transport=[transport]>
Max-Forwards: 70
Event: refer
Subscription-State: terminated;reason=noresource
Content-Type: message/sipfrag;version=2.0
Content-Length: [len]

SIP/2.0 200 OK
    ]]>
  </send>
  <recv response="200"/>
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
