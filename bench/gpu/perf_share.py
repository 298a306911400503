#!/usr/bin/env python3
# Share of the worker thread's CPU per component, from `perf script -F tid,time,ip,sym,dso`
# of `perf record --call-graph dwarf` (issue 27, point 6): samples of the first thread
# after its first `process_batch`, each given to the first component (in the order of
# RULES, then RULES2) that any of its frames names.
# Usage: perf script -i perf.data -F tid,time,ip,sym,dso > perf.txt; bench/gpu/perf_share.py perf.txt [x]
import sys, re, collections
samples=[]; cur=None
for line in open(sys.argv[1], errors='replace'):
    if not line.strip():
        if cur: samples.append(cur); cur=None
        continue
    m=re.match(r'\s*(\d+)\s+(\d+\.\d+):\s*(.*)', line)
    if m:
        if cur: samples.append(cur)
        cur={'tid':int(m.group(1)),'t':float(m.group(2)),'frames':[]}
        rest=m.group(3).strip()
        if rest: cur['frames'].append(rest)
    else:
        cur['frames'].append(line.strip())
if cur: samples.append(cur)
main_tid=samples[0]['tid']
start=min(s['t'] for s in samples if any('process_batch' in f or 'process_frames' in f for f in s['frames']))
# Leaf-first: the innermost frame that names a component decides.
RULES=[('file type (libmagic)', r'libmagic|magic_buffer|file_magic|filemagic'),
       ('multi-pattern matching', r'\bmpm::|Prefilter|prefilter'),
       ('regex (pcre)', r'pcre2|regex_automata|regex::|detect::pcre|pcre_dfa|Pcre'),
      ]
RULES2=[('detection (rest)', r'detect::'),('output (EVE/JSON)', r'output::|serde_json'),('app-layer parsing', r'app::'),
       ('flow/stream', r'flow::|engine::pipeline::flow_app'),('decode', r'wire::'),('capture read', r'capture::')]
def cat(frames):
    for R in (RULES, RULES2):
        for f in frames:
            for name,rx in R:
                if re.search(rx,f): return name
    return None
tot=collections.Counter(); n=0; unk=collections.Counter()
for s in samples:
    if s['tid']!=main_tid or s['t']<start: continue
    n+=1
    c=cat(s['frames'])
    if c is None:
        c='other'
        unk[' <- '.join(re.sub(r'^\S+\s+','',f)[:60] for f in s['frames'][:3])]+=1
    tot[c]+=1
print(f'worker samples after the first batch: {n}')
for k,v in tot.most_common(): print(f'{v/n*100:6.2f}%  {k}')
if len(sys.argv)>2:
  for k,v in unk.most_common(25): print(v,k)
