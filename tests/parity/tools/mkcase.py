#!/usr/bin/env python3
"""Make a corpus-style case folder from a scenario of tcp_scenarios.py with Suricata 7.0.10.

usage: mkcase.py CASEDIR SCENARIO RULES [--ips] [--why TEXT] [-- SURICATA_ARGS...]
Writes CASEDIR/input.pcap, test.rules, expected.jsonl (the alerts Suricata logged:
signature_id, addresses, ports, proto, pcap_cnt, app_proto) and case.toml (test_args,
simulate_ips), as in ../shared/corpus/open. Suricata runs with the stock configuration:
suricata -c /etc/suricata/suricata.yaml -k none --runmode single -r input.pcap -S test.rules
[--simulate-ips] [SURICATA_ARGS] [--include ../shared/corpus/alert-only-outputs.yaml].
"""
import json, os, shutil, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tcp_scenarios
from pcapw import write

# The corpus's output section (alert records only), when the shared data is there.
ALERT_ONLY = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../../shared/corpus/alert-only-outputs.yaml')

def main():
    argv = sys.argv[1:]
    extra = []
    if '--' in argv:
        i = argv.index('--'); extra = argv[i + 1:]; argv = argv[:i]
    ips = '--ips' in argv
    argv = [a for a in argv if a != '--ips']
    why = ''
    if '--why' in argv:
        i = argv.index('--why'); why = argv[i + 1]; del argv[i:i + 2]
    case, scen, rules = argv[:3]
    os.makedirs(case, exist_ok=True)
    write(os.path.join(case, 'input.pcap'), tcp_scenarios.S[scen]())
    shutil.copy(rules, os.path.join(case, 'test.rules'))
    with tempfile.TemporaryDirectory() as out:
        cmd = ['suricata', '-c', '/etc/suricata/suricata.yaml', '-k', 'none', '--runmode', 'single',
               '-r', 'input.pcap', '-S', 'test.rules', '-l', out] + (['--simulate-ips'] if ips else []) + extra
        if os.path.exists(ALERT_ONLY):
            cmd += ['--include', ALERT_ONLY]
        subprocess.run(cmd, cwd=case, check=True, capture_output=True)
        rows = []
        for line in open(os.path.join(out, 'eve.json')):
            o = json.loads(line)
            if o.get('event_type') != 'alert':
                continue
            r = {'signature_id': o['alert']['signature_id']}
            for k in ('src_ip', 'src_port', 'dest_ip', 'dest_port', 'proto', 'pcap_cnt', 'app_proto'):
                if k in o:
                    r[k] = o[k]
            rows.append(json.dumps(r))
    with open(os.path.join(case, 'expected.jsonl'), 'w') as f:
        f.write(''.join(r + '\n' for r in rows))
    with open(os.path.join(case, 'case.toml'), 'w') as f:
        f.write('# Made by tests/parity/tools/mkcase.py; expected.jsonl is what Suricata 7.0.10 logged.\n')
        f.write(f'scenario = "{scen}"\n')
        f.write('test_args = [' + ', '.join(json.dumps(a) for a in extra) + ']\n')
        f.write(f'simulate_ips = {"true" if ips else "false"}\n')
        f.write(f'alerts = {len(rows)}\n')
        f.write('suricata_version = "7.0.10"\n')
        shown = [a for i, a in enumerate(cmd) if a != '-l' and (i == 0 or cmd[i - 1] != '-l')]
        f.write('command = ' + json.dumps(' '.join(shown)) + '\n')
        if why:
            f.write('checks = ' + json.dumps(why) + '\n')
    print(case, len(rows), 'alerts')

main()
