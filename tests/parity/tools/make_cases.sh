#!/bin/bash
# Rebuild every case of this branch (run from tests/parity/tools).
set -e
C=../cases
python3 mkcase.py $C/tcp-tfo-option tfo34_acked stream.rules --why "TFO: a SYN with the Fast Open option (kind 34): its data is stream data, the SYN/ACK acks it, stream-capable rules skip the SYN's payload"
python3 mkcase.py $C/tcp-tfo-experimental-option tfoexp_acked stream.rules --why "TFO: the experimental option (kind 254, magic 0xF989) counts as the Fast Open option"
python3 mkcase.py $C/tcp-tfo-no-option tfonone_acked stream.rules --why "a SYN with data but no TFO option: the data is the packet's, the SYN/ACK acking it is ignored (session stays in syn_sent)"
python3 mkcase.py $C/tcp-tfo-option-data-not-acked tfo34_rejected stream.rules --why "TFO option, the SYN/ACK acks only the SYN: the client resends the data"
python3 mkcase.py $C/tcp-async-synack-pickup mid_synack_first stream.rules --why "stream.async-oneside without midstream: a session is picked up from a SYN/ACK" -- --set stream.async-oneside=true
python3 mkcase.py $C/tcp-async-server-only oneside_server stream.rules --why "stream.async-oneside: only the server side captured, from its SYN/ACK" -- --set stream.async-oneside=true
python3 mkcase.py $C/tcp-midstream-app-rule-pickup-packet mid_two_client app_packet.rules --ips --why "midstream pick-up, IPS: a packet rule of an app-layer protocol (alert http any any) does not match the pick-up packet (its stream was not established before it), transaction rules do" -- --set stream.midstream=true
python3 mkcase.py $C/tcp-midstream-app-rule-eof mid_client_first_nofin app_packet.rules --why "midstream session still open at the end: alert http rules without buffers match the end-of-flow pseudo-packets of both directions" -- --set stream.midstream=true
python3 mkcase.py $C/tcp-closed-app-rule-no-eof base app_packet.rules --why "a session closed by FINs: no end-of-flow pseudo-packet alerts" -- --set stream.midstream=true
python3 mkcase.py $C/tcp-midstream-ips-drop ips_mid_two_reqs ips_drop.rules --ips --why "midstream pick-up, IPS: the pick-up packet's data is raw-inspected with the direction's next packet with data (the drop lands on packet 5), the app layer parses it at once" -- --set stream.midstream=true
python3 mkcase.py $C/tcp-midstream-ips-pass ips_mid_two_reqs ips_pass.rules --ips --why "midstream pick-up, IPS: a pass rule matches at the next client packet with data; alerts before it stand, none after" -- --set stream.midstream=true
python3 mkcase.py $C/tcp-midstream-ips-drop-http ips_mid_two_reqs ips_drop_http.rules --ips --why "midstream pick-up, IPS: an http.uri drop rule matches on the pick-up packet itself; the flow's later packets are dropped without alerts" -- --set stream.midstream=true
python3 mkcase.py $C/tcp-tfo-ips-drop tfo34_acked ips_drop.rules --ips --why "TFO, IPS: the SYN's data is raw-inspected with the client's next packet with data (packet 6)"
python3 mkcase.py $C/tcp-ips-drop-then-silence ips_two_reqs ips_drop.rules --ips --why "IPS: after a drop rule matched, the flow's later packets are dropped without inspection (no alerts)"
python3 mkcase.py $C/tcp-midstream-ips-reject ips_mid_two_reqs ips_reject.rules --ips --why "midstream pick-up, IPS: a reject rule acts where a drop would (packet 5)" -- --set stream.midstream=true
