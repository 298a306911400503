#!/usr/bin/env python3
"""Lines per .rs file under the given dirs, without the #[cfg(test)] module; prints those over 900
(and with -a all over 600)."""
import os, sys, re
roots = [a for a in sys.argv[1:] if not a.startswith('-')] or ['crates']
show_all = '-a' in sys.argv
def count(path):
    lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
    n = 0; i = 0
    while i < len(lines):
        l = lines[i]
        if l.strip().startswith('#[cfg(test)]'):
            # skip attribute + the following item (mod block or single item)
            j = i + 1
            while j < len(lines) and lines[j].strip().startswith('#['):
                j += 1
            if j < len(lines) and re.match(r'\s*(pub(\(crate\))?\s+)?mod\s+\w+\s*;', lines[j]):
                i = j + 1; continue
            depth = 0; started = False
            while j < len(lines):
                depth += lines[j].count('{') - lines[j].count('}')
                if '{' in lines[j]: started = True
                if started and depth <= 0: break
                if not started and lines[j].rstrip().endswith(';'): break
                j += 1
            i = j + 1; continue
        n += 1; i += 1
    return n
bad = 0
for root in roots:
    for dp, dn, fn in os.walk(root):
        if '/target' in dp or '/tests' in dp or dp.endswith('tests') or '/benches' in dp: continue
        for f in fn:
            if not f.endswith('.rs') or f.endswith('tests.rs') or f == 'tests.rs': continue
            p = os.path.join(dp, f); n = count(p)
            if n > 900 or (show_all and n > 600):
                print(n, p); bad += n > 900
sys.exit(1 if bad else 0)
