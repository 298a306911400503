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
