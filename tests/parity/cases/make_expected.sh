#!/bin/sh
# Runs Suricata 7.0.10 on one case folder as the corpus was made (stock config or the
# case's suricata.yaml, alert-only outputs, -k none, single runmode) and writes its
# expected.jsonl (alerts with the corpus's reduced fields). Usage: make_expected.sh DIR
set -e
dir=$(cd "$1" && pwd)
out=$(mktemp -d)
cfg=/etc/suricata/suricata.yaml
[ -f "$dir/suricata.yaml" ] && cfg="$dir/suricata.yaml"
cat > "$out/alert-only.yaml" <<'YAML'
%YAML 1.1
---
outputs:
  - eve-log:
      enabled: yes
      filetype: regular
      filename: eve.json
      types:
        - alert
YAML
(cd "$dir" && suricata -c "$cfg" --include "$out/alert-only.yaml" -k none --runmode single \
    -r input.pcap -S test.rules -l "$out" >/dev/null)
python3 - "$out/eve.json" "$dir/expected.jsonl" <<'PY'
import json, sys
keys = ["signature_id", "src_ip", "src_port", "dest_ip", "dest_port", "proto", "pcap_cnt", "app_proto"]
with open(sys.argv[2], "w") as f:
    for line in open(sys.argv[1]):
        o = json.loads(line)
        if o.get("event_type") != "alert":
            continue
        o["signature_id"] = o["alert"]["signature_id"]
        f.write(json.dumps({k: o[k] for k in keys if k in o}) + "\n")
PY
rm -rf "$out"
